// Judge harness for JavaScript function and assert tests (baked into the image, read-only).
// argv: MODE SOURCE ENTRY_POINT.
//   function:  the *runner*: fd 3 result, fd 4 completion token, fd 5 the call ({"args": [...],
//              "kwargs": {...}}), fds 6/7 read from and write to the candidate, fds 8/9 the
//              candidate's ends. It starts the candidate as a process of its own (this file in
//              `candidate` mode), sends it the call and writes the JSON it answers.
//   assert:    the runner as above, with the test code on fd 5: it runs the tests with proxies
//              that call the candidate: values cross as plain data built anew on this side, so
//              nothing the program does to its globals, prototypes or the assert module reaches
//              the tests.
//   candidate: fd 3 requests, fd 4 answers; runs the user's program and nothing else.
// The result is "TOKEN\n{json}", written only once the call or the tests have really completed,
// so a program that exits early cannot pass; the token and the tests stay in the runner, out of
// reach of the program's process (and of its require('inspector')).
'use strict';
const fs = require('fs');
const vm = require('vm');
const childProcess = require('child_process');

const [mode, sourcePath, entryPoint] = process.argv.slice(2);
// A listener of our own for SIGUSR1: node's would start its inspector (127.0.0.1:9229), through
// which the candidate (same uid, and a sandbox has loopback) could pause the runner and call
// report() in its frames, or read the tests: the execute-only node-runner keeps only
// /proc/<pid>/mem out of reach. (Node 20 has no --disable-sigusr1; libuv's handler restarts
// the runner's blocking reads, so the signal cannot fail them with EINTR either.)
if (mode !== 'candidate') process.on('SIGUSR1', () => {});
const writeSync = fs.writeSync;
const readSync = fs.readSync;
const stringify = JSON.stringify;
const parse = JSON.parse;
const exit = process.exit.bind(process);
const MAX_DEPTH = 1000;
const MAX_MESSAGE = 64 << 20;
const NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?$/;

class NotPlain extends Error {}

// ---- plain data ----------------------------------------------------------------------------
function toPlain(value, depth = 0) {
  if (depth > MAX_DEPTH) throw new NotPlain(`nested deeper than ${MAX_DEPTH} levels`);
  if (value === null) return null;
  switch (typeof value) {
    case 'undefined': return { $: 'undefined' };
    case 'boolean': case 'string': return value;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? value : { $: 'number', v: String(value) };
    case 'bigint': return { $: 'bigint', v: value.toString() };
    default: break;
  }
  const deeper = (item) => toPlain(item, depth + 1);
  if (Array.isArray(value)) return Array.from(value, deeper);
  if (value instanceof Map) return { $: 'map', v: Array.from(value, ([k, v]) => [deeper(k), deeper(v)]) };
  if (value instanceof Set) return { $: 'set', v: Array.from(value, deeper) };
  const prototype = Object.getPrototypeOf(value);
  if (typeof value === 'object' && (prototype === Object.prototype || prototype === null)) {
    return { $: 'object', v: Object.entries(value).map(([k, v]) => [k, deeper(v)]) };
  }
  const kind = typeof value === 'function' ? 'function' : (value.constructor && value.constructor.name) || 'object';
  throw new NotPlain(`a ${kind} is not plain data`);
}

function fromPlain(value, depth = 0) {
  if (depth > MAX_DEPTH) throw new NotPlain(`nested deeper than ${MAX_DEPTH} levels`);
  if (value === null || typeof value !== 'object') return value;
  const deeper = (item) => fromPlain(item, depth + 1);
  if (Array.isArray(value)) return value.map(deeper);
  const items = value.v;
  switch (value.$) {
    case 'undefined': return undefined;
    case 'number': return Number(items);
    case 'bigint': return BigInt(items);
    case 'map': return new Map(items.map(([k, v]) => [deeper(k), deeper(v)]));
    case 'set': return new Set(items.map(deeper));
    case 'object': {
      const object = {};
      for (const [k, v] of items) {
        Object.defineProperty(object, String(k), { value: deeper(v), enumerable: true, writable: true, configurable: true });
      }
      return object;
    }
    default: throw new NotPlain('a JSON object that is not a tagged value');
  }
}

// ---- frames over blocking pipes --------------------------------------------------------------
function writeFrame(fd, message) {
  const body = Buffer.from(stringify(message));
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  for (let offset = 0; offset < frame.length;) offset += writeSync(fd, frame, offset);
}

function readExact(fd, size) {
  const buffer = Buffer.alloc(size);
  for (let offset = 0; offset < size;) {
    const count = readSync(fd, buffer, offset, size - offset, null);
    if (count === 0) throw new Error('EOF');
    offset += count;
  }
  return buffer;
}

function readFrame(fd) {
  const size = readExact(fd, 4).readUInt32BE(0);
  if (size > MAX_MESSAGE) throw new Error(`message of ${size} bytes`);
  return parse(readExact(fd, size).toString('utf8'));
}

function describe(error) {
  if (error && (error.code === 'ERR_ASSERTION' || error.name === 'AssertionError')) {
    return { status: 'assertion', message: String(error.message).slice(0, 500) };
  }
  const type = error && error.constructor ? error.constructor.name : typeof error;
  return { status: 'exception', type, message: String(error && error.message).slice(0, 500) };
}

function loadWrapper(body, filename) {
  return vm.runInThisContext(
    `(function (require, module, exports, __filename, __dirname) {${body}\n})`,
    { filename },
  );
}

// ---- the process that writes the verdict (function mode, assert runner) --------------------
function reporter() {
  const token = fs.readFileSync(4, 'utf8');
  fs.closeSync(4);
  const testText = fs.readFileSync(5, 'utf8');
  fs.closeSync(5);
  const ftruncateSync = fs.ftruncateSync;
  let beforeExit = () => {};
  function report(payload, code) {
    try {
      beforeExit();
      ftruncateSync(3, 0);
      writeSync(3, token + '\n' + stringify(payload));
    } finally {
      exit(code);
    }
  }
  process.on('uncaughtException', (error) => { console.error(error); report(describe(error), 1); });
  process.on('unhandledRejection', (error) => { console.error(error); report(describe(error), 1); });
  return { testText, report, onExit: (hook) => { beforeExit = hook; } };
}

function resolver(name) {
  if (name.includes('.')) {
    const [cls, method] = name.split('.', 2);
    return `return (() => { const o = new ${cls}(); return o.${method}.bind(o); })();`;
  }
  return `if (typeof ${name} === 'function') return ${name};
    if (typeof Solution === 'function') { const o = new Solution(); return o.${name}.bind(o); }
    if (typeof module.exports === 'function') return module.exports;
    if (module.exports && typeof module.exports.${name} === 'function') return module.exports.${name};
    throw new ReferenceError('entry point ${name} is neither a function nor a Solution method');`;
}

function runFunction() {
  const { testText, report, onExit } = reporter();
  let args;
  try {
    const call = parse(testText);
    const kwargs = call.kwargs || {};
    args = (call.args || []).concat(Object.keys(kwargs).length ? [kwargs] : []);
  } catch (error) {
    report({ status: 'harness_error', message: `the call is not JSON: ${error.message}` }, 1);
  }
  let request;
  try {
    request = ['call_json', entryPoint, args.map((arg) => toPlain(arg))];
  } catch (error) {
    report({ status: 'harness_error', message: `the call's arguments cannot cross the process boundary: ${error.message}` }, 1);
  }
  const candidate = startCandidate(report, onExit);
  candidate.send(request);
  const reply = candidate.receive();
  if (reply[0] === 'json') {
    let value;
    try {
      value = parse(reply[1]);
    } catch (error) {
      report({ status: 'exception', message: `malformed answer: ${error.message}` }, 1);
    }
    report({ status: 'ok', value }, 0);
  }
  if (reply[0] === 'unserializable') report({ status: 'unserializable', message: `return value: ${reply[1]}` }, 0);
  candidate.failed(reply);
}

// Names the tests may use that the program cannot redefine for them.
const RESERVED = new Set(['require', 'module', 'exports', '__filename', '__dirname', 'check', 'assert']);

// ---- the runner's end of the candidate -----------------------------------------------------
function startCandidate(report, onExit) {
  // The candidate runs on the ordinary node: only the runner needs the unreadable copy.
  const candidate = childProcess.spawn(
    '/usr/bin/node',
    [...process.execArgv, __filename, 'candidate', sourcePath, entryPoint],
    { stdio: ['inherit', 'inherit', 'inherit', 8, 9], env: process.env },
  );
  fs.closeSync(8);
  fs.closeSync(9);
  onExit(() => { try { candidate.kill('SIGKILL'); } catch (error) { /* already gone */ } });
  const ended = () => report({ status: 'exited', message: 'the program exited before the tests completed' }, 1);

  function send(request) {
    try {
      writeFrame(7, request);
    } catch (error) {
      ended();
    }
  }

  function receive() {
    let reply;
    try {
      reply = readFrame(6);
    } catch (error) {
      ended();
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'string') {
      report({ status: 'exception', message: 'malformed answer' }, 1);
    }
    return reply;
  }

  function failed(reply) {
    const detail = String(reply[1] === undefined ? '' : reply[1]).slice(0, 2000);
    if (reply[0] === 'not_plain') report({ status: 'not_plain_data', message: `the candidate returned ${detail}` }, 1);
    if (reply[0] === 'compile_error') report({ status: 'compile_error', message: detail }, 0);
    if (reply[0] === 'raise') report({ status: 'exception', type: detail.slice(0, 100), message: String(reply[2]).slice(0, 500) }, 1);
    ended();
  }

  const ready = receive();
  if (ready[0] !== 'ready' || !Array.isArray(ready[1])) failed(ready);
  return { send, receive, failed, names: ready[1] };
}

function runAssert() {
  const { testText, report, onExit } = reporter();
  if (!NAME.test(entryPoint || '')) {
    report({ status: 'harness_error', message: `entry point ${stringify(entryPoint)} is not a name` }, 1);
  }
  const candidate = startCandidate(report, onExit);

  function call(name, args) {
    let request;
    try {
      request = ['call', name, args.map((arg) => toPlain(arg))];
    } catch (error) {
      report({ status: 'harness_error', message: `the tests pass the candidate a value that cannot cross the process boundary: ${error.message}` }, 1);
    }
    candidate.send(request);
    const reply = candidate.receive();
    let value;
    try {
      if (reply[0] === 'return') {
        value = fromPlain(reply[1]);
        writeBack(args, reply[2]);
      }
    } catch (error) {
      report({ status: 'exception', message: `malformed answer: ${error.message}` }, 1);
    }
    if (reply[0] === 'return') return value;
    if (reply[0] === 'raise') {
      const Kind = globalThis[reply[1]];
      const error = typeof Kind === 'function' && Kind.prototype instanceof Error ? new Kind(String(reply[2])) : new Error(`${reply[1]}: ${reply[2]}`);
      throw error;
    }
    return candidate.failed(reply);
  }

  const proxy = (name) => { const f = (...args) => call(name, args); Object.defineProperty(f, 'name', { value: name }); return f; };
  const names = candidate.names.filter((name) => typeof name === 'string' && NAME.test(name) && !name.includes('.')
    && !(name in globalThis) && !RESERVED.has(name) && name !== '__judge_candidate__');
  let outer;
  try {
    outer = vm.runInThisContext(
      `(function (__judge_candidate__, ${names.join(', ')}) { return function (require, module, exports, __filename, __dirname) {${testText}\n;if (typeof check === 'function') { return check(__judge_candidate__); }\n}; })`,
      { filename: '<tests>' },
    );
  } catch (error) {
    report({ status: 'compile_error', message: String(error.stack || error).slice(0, 2000) }, 0);
  }
  const module = { exports: {} };
  new Promise((resolve) => {
    resolve(outer(proxy(entryPoint), ...names.map(proxy))(require, module, module.exports, '<tests>', '/work'));
  })
    .then(() => report({ status: 'ok' }, 0))
    .catch((error) => { console.error(error); report(describe(error), 1); });
}

function writeBack(args, updated) {
  if (!Array.isArray(updated)) return;
  args.forEach((original, index) => {
    const value = updated[index] === null ? null : fromPlain(updated[index]);
    if (Array.isArray(original) && Array.isArray(value)) original.splice(0, original.length, ...value);
  });
}

// ---- the candidate's process: untrusted from the program's first line on -------------------
async function serveCandidate() {
  const send = (message) => writeFrame(4, message);
  const source = fs.readFileSync(sourcePath, 'utf8');
  const module = { exports: {} };
  const raise = (error) => {
    send(['raise', error && error.constructor ? error.constructor.name : 'Error', String(error && error.message).slice(0, 500)]);
    exit(0);
  };
  let wrapper;
  let exported;
  try {
    const body = `${source}\n;return [(__judge_name__) => eval(__judge_name__), () => {${resolver(entryPoint)}}];`;
    wrapper = loadWrapper(body, sourcePath);
  } catch (error) {
    // Only the source's own syntax is a compile error; a SyntaxError its code throws as it
    // runs (JSON.parse of bad text) is a runtime error, as for a whole program.
    if (error instanceof SyntaxError) send(['compile_error', String(error.stack || error).slice(0, 2000)]);
    else raise(error);
    exit(0);
  }
  try {
    exported = wrapper(require, module, module.exports, sourcePath, '/work');
  } catch (error) {
    raise(error);
  }
  const [lookup, resolveEntry] = exported;
  let entry = null;
  const declared = new Set();
  const declaration = /(?:function\s*\*?\s*|(?:const|let|var|class)\s+)([A-Za-z_$][\w$]*)/g;
  for (const match of source.matchAll(declaration)) declared.add(match[1]);
  const names = [...declared].filter((name) => { try { return typeof lookup(name) === 'function'; } catch (error) { return false; } });
  send(['ready', names]);
  for (;;) {
    let request;
    try {
      request = readFrame(3);
    } catch (error) {
      exit(0);
    }
    const [, name, plainArgs] = request;
    let reply;
    try {
      const args = plainArgs.map((arg) => fromPlain(arg));
      if (name === entryPoint && entry === null) entry = resolveEntry();
      const fn = name === entryPoint ? entry : lookup(name);
      let value = fn(...args);
      if (value && typeof value.then === 'function') value = await value;
      if (request[0] === 'call_json') {
        reply = answerJson(value);
      } else {
        try {
          reply = ['return', toPlain(value), args.map((arg) => (Array.isArray(arg) ? toPlain(arg) : null))];
        } catch (error) {
          reply = ['not_plain', String(error && error.message).slice(0, 500)];
        }
      }
    } catch (error) {
      reply = ['raise', error && error.constructor ? error.constructor.name : 'Error', String(error && error.message).slice(0, 500)];
    }
    send(reply);
  }
}

// A function-mode answer: the return value as JSON (undefined as null), as a test expects it.
function answerJson(value) {
  try {
    const text = stringify(value === undefined ? null : value);
    if (text === undefined) return ['unserializable', `a ${typeof value} is not JSON`];
    return ['json', text];
  } catch (error) {
    return ['unserializable', String(error && error.message).slice(0, 500)];
  }
}

const modes = { function: runFunction, assert: runAssert, candidate: serveCandidate };
if (!modes[mode]) {
  console.error(`unknown mode ${mode}`);
  exit(2);
}
Promise.resolve()
  .then(modes[mode])
  .catch((error) => {
    console.error(error);
    exit(1);
  });
