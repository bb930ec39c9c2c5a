"""The candidate never sees the tests: no answer can be looked up instead of computed.

An assert-mode test holds its expected answers (``assert candidate(3) == 1234567``). A policy
that finds them in memory can answer every call from a table and earn full reward without
solving anything. Each test below is such a lookup through a different route; the answers
are numbers no program could compute from its argument, so only a leak passes.
"""

from __future__ import annotations

import textwrap

import pytest

from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

FAST = {"time_limit_ms": 4000}
PY_CHECK = """
def check(candidate):
    assert candidate(3) == 1234567
    assert candidate(5) == 7654321
"""
JS_CHECK = """
const assert = require('assert');
function check(candidate) {
  assert.strictEqual(candidate(3), 1234567);
  assert.strictEqual(candidate(5), 7654321);
}
"""
# Every lookup below searches text for "candidate(<argument>) == <answer>" (Python) or
# "candidate(<argument>), <answer>)" (JavaScript); the patterns are spelled with classes so that
# the program's own source never matches them.
PY_LOOKUP = r"""
import re
PATTERN = re.compile(rb"candidate[(]([0-9]+)[)] == ([0-9]+)")
def lookup(blob, x):
    for argument, answer in PATTERN.findall(blob):
        if int(argument) == x:
            return int(answer)
    return None
"""
JS_LOOKUP = r"""
const fs = require('fs');
function lookup(text, x) {
  for (const m of text.matchAll(/candidate[(]([0-9]+)[)], ([0-9]+)[)]/g)) {
    if (Number(m[1]) === x) return Number(m[2]);
  }
  return null;
}
function readMemory(pid, x) {
  const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n');
  const fd = fs.openSync(`/proc/${pid}/mem`, 'r');
  for (const line of maps) {
    const [range, perms] = line.split(' ');
    if (!perms || perms[0] !== 'r') continue;
    const [start, end] = range.split('-').map((h) => BigInt('0x' + h));
    const size = Number(end - start);
    if (size > (64 << 20)) continue;
    const buffer = Buffer.alloc(size);
    try { fs.readSync(fd, buffer, 0, size, start); } catch (error) { continue; }
    const found = lookup(buffer.toString('latin1'), x);
    if (found !== null) return found;
  }
  return 0;
}
"""

# Node's inspector on the runner: SIGUSR1 starts it on 127.0.0.1:9229 (a sandbox has loopback).
# A thread of the candidate's, which goes on while its main thread waits on the runner, waits
# until the runner is busy rebuilding a large answer (in JavaScript, where the inspector's
# messages land), turns the inspector on, pauses the runner and, in each of its frames, calls
# the harness's own report(ok): the runner exits 0 with the token and "ok".
JS_INSPECTOR = r"""
const { Worker } = require('worker_threads');
let started = false;
function f(x) {
  if (started) return 0;
  started = true;
  new Worker(`
    const fs = require('fs'), net = require('net'), http = require('http');
    const { workerData: { me, runner } } = require('worker_threads');
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const state = (pid) => {
      try { return fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1][0]; }
      catch (e) { return '?'; }
    };
    const getJson = () => new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: 9229, path: '/json/list' }, (res) => {
        let d = ''; res.on('data', (c) => { d += c; });
        res.on('end', () => { try { resolve(JSON.parse(d)); } catch (e) { reject(e); } });
      }).on('error', reject);
    });
    let id = 0;
    const send = (sock, method, params) => {
      const payload = Buffer.from(JSON.stringify({ id: ++id, method, params }));
      const mask = Buffer.from([1, 2, 3, 4]);
      const header = Buffer.from([0x81, 0xfe, payload.length >> 8, payload.length & 255]);
      const masked = Buffer.from(payload.map((v, i) => v ^ mask[i % 4]));
      sock.write(Buffer.concat([header, mask, masked]));
    };
    (async () => {
      for (let streak = 0, i = 0; streak < 3 && i < 20000; i++) {
        streak = state(me) === 'S' && state(runner) === 'R' ? streak + 1 : 0;
        await sleep(1);
      }
      process.kill(runner, 'SIGUSR1');
      let list;
      for (let i = 0; i < 2000 && !list; i++) {
        try { list = await getJson(); } catch (e) { await sleep(1); }
      }
      const sock = net.connect(9229, '127.0.0.1');
      await new Promise((r) => sock.on('connect', r));
      const path = new URL(list[0].webSocketDebuggerUrl).pathname;
      sock.write('GET ' + path + ' HTTP/1.1\\r\\nHost: 127.0.0.1:9229\\r\\n'
        + 'Upgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Version: 13\\r\\n'
        + 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n\\r\\n');
      let buffer = Buffer.alloc(0), upgraded = false;
      sock.on('data', (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        if (!upgraded) {
          const end = buffer.indexOf('\\r\\n\\r\\n');
          if (end < 0) return;
          buffer = buffer.subarray(end + 4);
          upgraded = true;
          send(sock, 'Debugger.enable', {});
          send(sock, 'Debugger.pause', {});
        }
        for (;;) {
          if (buffer.length < 2) return;
          let length = buffer[1] & 127, offset = 2;
          if (length === 126) {
            if (buffer.length < 4) return;
            length = buffer.readUInt16BE(2); offset = 4;
          } else if (length === 127) {
            if (buffer.length < 10) return;
            length = Number(buffer.readBigUInt64BE(2)); offset = 10;
          }
          if (buffer.length < offset + length) return;
          const message = JSON.parse(buffer.subarray(offset, offset + length).toString());
          buffer = buffer.subarray(offset + length);
          if (message.method !== 'Debugger.paused') continue;
          for (const frame of message.params.callFrames) {
            send(sock, 'Debugger.evaluateOnCallFrame', { callFrameId: frame.callFrameId,
              expression: "typeof report === 'function' && report({ status: 'ok' }, 0)" });
          }
          send(sock, 'Debugger.resume', {});
        }
      });
      setInterval(() => {}, 1000);
    })();
  `, { eval: true, workerData: { me: process.pid, runner: process.ppid } });
  // An answer the runner takes a while to rebuild.
  return Array.from({ length: 300000 }, (_, i) => [i]);
}
"""


def _run(judge, code: str, check: str, language: str):
    return judge(
        language,
        textwrap.dedent(code).lstrip("\n"),
        [{"code": textwrap.dedent(check).lstrip("\n")}],
        mode="assert",
        entry_point="f",
        limits=FAST,
    )


def _messages(result) -> list[tuple[str, str]]:
    return [(test.message, test.stderr[-2000:]) for test in result.tests]


@pytest.mark.parametrize(
    "attack",
    [
        # The frames the program was started from still hold the runner's locals.
        """
        import sys
        def f(x):
            frame = sys._getframe()
            while frame is not None:
                for value in list(frame.f_locals.values()):
                    if isinstance(value, str):
                        value = value.encode()
                    if isinstance(value, bytes) and lookup(value, x) is not None:
                        return lookup(value, x)
                frame = frame.f_back
            return 0
        """,
        # Whatever the process inherited, read back from its own memory (freed text included).
        """
        def f(x):
            with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
                for line in maps:
                    addresses, permissions = line.split()[:2]
                    start, end = (int(a, 16) for a in addresses.split("-"))
                    if permissions[0] != "r" or end - start > 256 << 20:
                        continue
                    try:
                        mem.seek(start)
                        found = lookup(mem.read(end - start), x)
                    except (OSError, ValueError, OverflowError):
                        continue
                    if found is not None:
                        return found
            return 0
        """,
        # The runner's memory and descriptors, read through /proc.
        """
        import os
        def f(x):
            parent = os.getppid()
            paths = [f"/proc/{pid}/fd/{n}" for pid in (parent, "self") for n in range(64)]
            for path in paths:
                try:
                    with open(path, "rb") as handle:
                        found = lookup(handle.read(1 << 20), x)
                except OSError:
                    continue
                if found is not None:
                    return found
            try:
                with open(f"/proc/{parent}/mem", "rb", 0) as mem:
                    mem.seek(0)
            except OSError:
                pass
            return 0
        """,
    ],
    ids=["runner-frames", "own-memory", "runner-proc-files"],
)
def test_python_candidate_cannot_read_the_tests(judge, assert_path: str, attack: str) -> None:
    code = PY_LOOKUP + textwrap.dedent(attack)
    result = _run(judge, code, PY_CHECK, "python")
    assert result.verdict is not Verdict.AC, _messages(result)


@pytest.mark.parametrize(
    "attack",
    [
        # The runner's memory, read through /proc/<runner>/mem.
        "function f(x) { return readMemory(process.ppid, x); }\n",
        # The candidate's own memory (anything it was handed at start).
        "function f(x) { return readMemory(process.pid, x); }\n",
        # Every descriptor the runner or the candidate holds.
        """
        function f(x) {
          for (const pid of [process.ppid, process.pid]) {
            for (let n = 0; n < 64; n++) {
              try {
                const found = lookup(fs.readFileSync(`/proc/${pid}/fd/${n}`, 'latin1'), x);
                if (found !== null) return found;
              } catch (error) { /* not there or not ours */ }
            }
          }
          return 0;
        }
        """,
        JS_INSPECTOR,
    ],
    ids=["runner-memory", "own-memory", "descriptors", "runner-inspector"],
)
def test_javascript_candidate_cannot_read_the_tests(judge, attack: str) -> None:
    code = JS_LOOKUP + textwrap.dedent(attack)
    result = _run(judge, code, JS_CHECK, "javascript")
    assert result.verdict is not Verdict.AC, _messages(result)


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_the_lookup_itself_works_when_the_answer_is_in_reach(judge, language: str) -> None:
    """The attacks above fail because the tests are out of reach, not because the lookup is
    broken: the same lookup over text the program holds itself finds the answer."""
    if language == "python":
        code = PY_LOOKUP + (
            'TEXT = "candidate" + "(3) == 1234567 candidate" + "(5) == 7654321"\n'
            "def f(x):\n    return lookup(TEXT.encode(), x)\n"
        )
        check = PY_CHECK
    else:
        code = JS_LOOKUP + (
            "const TEXT = 'candidate' + '(3), 1234567) candidate' + '(5), 7654321)';\n"
            "function f(x) { return lookup(TEXT, x); }\n"
        )
        check = JS_CHECK
    result = _run(judge, code, check, language)
    assert result.verdict is Verdict.AC, _messages(result)


# ---- planned calls: a later call's arguments are not in reach before the answer ----------------
CHAIN_CHECK = """
def check(candidate):
    assert candidate(11) == 13
    assert candidate(13) == 17
    assert candidate(17) == 19
"""


@pytest.mark.parametrize(
    "attack",
    [
        # Read ahead on the calls descriptor: the next call's argument is this one's answer.
        """
        import os, re
        def f(x):
            os.set_blocking(4, False)
            try:
                ahead = os.read(4, 1 << 16)
            except OSError:
                ahead = b""
            found = re.findall(rb"[0-9]+", ahead)
            return int(found[0]) if found else 0
        """,
        # Scan the process's own memory for any call argument not yet made.
        """
        import re
        seen = set()
        def f(x):
            seen.add(x)
            with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
                for line in maps:
                    addresses, permissions = line.split()[:2]
                    start, end = (int(a, 16) for a in addresses.split("-"))
                    if permissions[0] != "r" or end - start > 256 << 20:
                        continue
                    try:
                        mem.seek(start)
                        blob = mem.read(end - start)
                    except (OSError, ValueError, OverflowError):
                        continue
                    for match in re.findall(rb'"f",\\[([0-9]+)\\]', blob):
                        if int(match) > x:
                            return int(match)
            return 0
        """,
    ],
    ids=["read-ahead", "memory-scan"],
)
def test_a_planned_program_cannot_see_later_calls_before_answering(
    judge, assert_path: str, attack: str
) -> None:
    result = _run(judge, textwrap.dedent(attack), CHAIN_CHECK, "python")
    assert result.verdict is not Verdict.AC, _messages(result)


# The inspector's port as the candidate sees it after signalling the runner by each route a
# program has: process.kill, node's own process._debugProcess, and another process's kill.
# The probe runs in a child of the candidate, waiting up to about a second for the port.
JS_INSPECTOR_PROBE = r"""
const { spawnSync } = require('child_process');
const PROBE = "require('net').connect(9229, '127.0.0.1')"
  + ".on('connect', () => { console.log('open'); process.exit(); })"
  + ".on('error', () => { console.log('closed'); process.exit(); })";
function f(route) {
  const runner = process.ppid;
  if (route === 'kill') process.kill(runner, 'SIGUSR1');
  else if (route === 'debugProcess') process._debugProcess(runner);
  else spawnSync('/bin/sh', ['-c', 'kill -USR1 ' + runner]);
  for (let i = 0; i < 20; i++) {
    const out = spawnSync(process.execPath, ['-e', PROBE], { encoding: 'utf8' }).stdout.trim();
    if (out === 'open') return 'open';
    spawnSync('/bin/sh', ['-c', 'sleep 0.05']);
  }
  return 'closed';
}
"""


@pytest.mark.parametrize("route", ["kill", "debugProcess", "shell"])
def test_no_signal_opens_the_javascript_runners_inspector(judge, route: str) -> None:
    """Whichever way SIGUSR1 reaches the runner, its inspector stays closed (with it open, the
    candidate could pause the runner and report its own verdict: the attack above)."""
    check = (
        "const assert = require('assert');\n"
        f"function check(candidate) {{ assert.strictEqual(candidate('{route}'), 'closed'); }}\n"
    )
    result = _run(judge, JS_INSPECTOR_PROBE, check, "javascript")
    assert result.verdict is Verdict.AC, _messages(result)
