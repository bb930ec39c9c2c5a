"""Function mode's completion token is out of the program's reach (JavaScript, TypeScript).

The harness writes "TOKEN\\n{result}" only once the call has really returned; a program that
holds the token can write that record itself and exit before its function finishes (or
without ever running it). In-process, the token sat in the harness's closures, where
``require('inspector')`` and heap snapshots read it back. The runner now holds the token and
the candidate runs in a process of its own. Each attack below finds a token by its own route,
writes the record with the right answer and exits at once: only a leak can make that AC; a
program that exits before the call completes is a runtime error.
"""

from __future__ import annotations

import pytest

from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

# Finds a 32-hex-digit string a closure holds under ``name``: through the inspector's view of
# closure scopes, through an inspector heap snapshot, or through v8's own heap snapshot.
FINDERS = r"""
const fs = require('fs');
const HEX = /^[0-9a-f]{32}$/;
function forge(token, value) {
  fs.ftruncateSync(3, 0);
  fs.writeSync(3, token + '\n' + JSON.stringify({ status: 'ok', value }), 0);
  process.exit(0);
}
function contextString(text, name) {
  const snap = JSON.parse(text);
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length, ef = meta.edge_fields.length;
  const edgeTypes = meta.edge_types[0], nodeTypes = meta.node_types[0];
  const { nodes, edges, strings } = snap;
  const iType = meta.node_fields.indexOf('type'), iName = meta.node_fields.indexOf('name');
  const iCount = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type'), eName = meta.edge_fields.indexOf('name_or_index');
  const eTo = meta.edge_fields.indexOf('to_node');
  for (let n = 0, e = 0; n < nodes.length; n += nf) {
    for (let k = 0; k < nodes[n + iCount]; k++, e += ef) {
      if (edgeTypes[edges[e + eType]] !== 'context' || strings[edges[e + eName]] !== name) continue;
      const to = edges[e + eTo];
      const value = strings[nodes[to + iName]];
      if (nodeTypes[nodes[to + iType]] === 'string' && HEX.test(value)) return value;
    }
  }
  return null;
}
function viaScopes(name) {
  const session = new (require('inspector').Session)();
  session.connect();
  const post = (method, params) => {
    let out = {};
    session.post(method, params, (error, result) => { if (!error) out = result; });
    return out;
  };
  const seen = new Set();
  const search = (objectId, depth) => {
    if (!objectId || depth > 4 || seen.has(objectId)) return null;
    seen.add(objectId);
    const properties = post('Runtime.getProperties', { objectId, ownProperties: true });
    const { result = [], internalProperties = [] } = properties;
    for (const property of [...result, ...internalProperties]) {
      const value = property.value;
      if (!value) continue;
      const text = value.type === 'string' ? value.value : '';
      if (property.name === name && HEX.test(text)) return text;
      const found = search(value.objectId, depth + 1);
      if (found) return found;
    }
    return null;
  };
  for (const event of ['uncaughtException', 'unhandledRejection']) {
    for (const [index] of process.listeners(event).entries()) {
      const expression = `process.listeners('${event}')[${index}]`;
      const found = search((post('Runtime.evaluate', { expression }).result || {}).objectId, 0);
      if (found) return found;
    }
  }
  const kept = post('Runtime.evaluate', { expression: 'globalThis.keep' }).result || {};
  return search(kept.objectId, 0);
}
function viaInspectorSnapshot(name) {
  const session = new (require('inspector').Session)();
  session.connect();
  const chunks = [];
  session.on('HeapProfiler.addHeapSnapshotChunk', (message) => chunks.push(message.params.chunk));
  session.post('HeapProfiler.takeHeapSnapshot', {});
  return contextString(chunks.join(''), name);
}
function viaV8Snapshot(name) {
  const path = require('v8').writeHeapSnapshot(`/tmp/heap-${process.pid}.heapsnapshot`);
  return contextString(fs.readFileSync(path, 'utf8'), name);
}
"""
ROUTES = ["viaScopes", "viaInspectorSnapshot", "viaV8Snapshot"]
FOUND_BY_EACH_ROUTE = ", ".join(f"{route}('token')" for route in ROUTES)
LANGUAGES = ["javascript", "typescript"]
TEST = [{"args": [3], "expected": 4}]
LIMITS = {"time_limit_ms": 8000, "memory_limit_mb": 512}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("route", ROUTES)
def test_a_program_cannot_find_the_token_and_forge_the_record(
    judge, language: str, route: str
) -> None:
    code = FINDERS + (
        "function f(x) {\n"
        f"  const token = {route}('token');\n"
        "  if (token) forge(token, x + 1);\n"
        "  process.exit(0);\n"
        "}\n"
    )
    result = judge(language, code, TEST, mode="function", entry_point="f", limits=LIMITS)
    assert result.verdict is Verdict.RE, [(t.message, t.stderr[-500:]) for t in result.tests]
    assert "exited before the tests completed" in result.tests[0].message


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_route_finds_a_token_held_where_it_can_reach(judge, language: str) -> None:
    """The attacks fail because the token is out of reach, not because the routes are broken:
    each finds a token the program's own closure holds."""
    code = FINDERS + (
        "const planted = (() => { const token = 'c0ffeec0ffeec0ffeec0ffeec0ffee00'; "
        "return () => token; })();\n"
        "globalThis.keep = planted;\n"
        "function f(x) {\n"
        f"  const found = [{FOUND_BY_EACH_ROUTE}];\n"
        "  return found.every((token) => token === planted()) ? x + 1 : found;\n"
        "}\n"
    )
    result = judge(language, code, TEST, mode="function", entry_point="f", limits=LIMITS)
    assert result.verdict is Verdict.AC, [(t.message, t.stderr[-500:]) for t in result.tests]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("mode", ["function", "assert"])
def test_a_syntax_error_the_program_throws_as_it_runs_is_a_runtime_error(
    judge, language: str, mode: str
) -> None:
    code = "JSON.parse('{not json');\nfunction f(x) { return x + 1; }\n"
    tests = (
        [{"code": "const assert = require('assert');\nassert.strictEqual(f(3), 4);\n"}]
        if mode == "assert"
        else TEST
    )
    result = judge(language, code, tests, mode=mode, entry_point="f")
    assert result.verdict is Verdict.RE, [(t.message, t.stderr[-300:]) for t in result.tests]
    assert result.compile is None or result.compile.ok
