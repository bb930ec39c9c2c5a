// Judge harness for JavaScript function and assert tests (baked into the image, read-only).
// argv: MODE SOURCE ENTRY_POINT. fd 3: result, fd 4: completion token, fd 5: the test
// (function mode: {"args": [...], "kwargs": {...}} as JSON; assert mode: test code).
// The result is "TOKEN\n{json}", written only once the test has really completed, so a
// program that exits early cannot pass.
'use strict';
const fs = require('fs');
const vm = require('vm');

const [mode, sourcePath, entryPoint] = process.argv.slice(2);
const token = fs.readFileSync(4, 'utf8');
fs.closeSync(4);
const testText = fs.readFileSync(5, 'utf8');
fs.closeSync(5);
const writeSync = fs.writeSync;
const ftruncateSync = fs.ftruncateSync;
const exit = process.exit.bind(process);
const stringify = JSON.stringify;

function report(payload, code) {
  try {
    ftruncateSync(3, 0);
    writeSync(3, token + '\n' + stringify(payload));
  } finally {
    exit(code);
  }
}

function describe(error) {
  if (error && (error.code === 'ERR_ASSERTION' || error.name === 'AssertionError')) {
    return { status: 'assertion', message: String(error.message).slice(0, 500) };
  }
  const type = error && error.constructor ? error.constructor.name : typeof error;
  return { status: 'exception', type, message: String(error && error.message).slice(0, 500) };
}

process.on('uncaughtException', (error) => {
  console.error(error);
  report(describe(error), 1);
});
process.on('unhandledRejection', (error) => {
  console.error(error);
  report(describe(error), 1);
});

function load(extra) {
  const source = fs.readFileSync(sourcePath, 'utf8');
  const body = `${source}\n;${extra}`;
  try {
    return vm.runInThisContext(
      `(function (require, module, exports, __filename, __dirname) {${body}\n})`,
      { filename: sourcePath },
    );
  } catch (error) {
    if (error instanceof SyntaxError) {
      report({ status: 'compile_error', message: String(error.stack || error).slice(0, 2000) }, 0);
    }
    throw error;
  }
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

async function main() {
  const module = { exports: {} };
  if (mode === 'function') {
    const call = JSON.parse(testText);
    const wrapper = load(resolver(entryPoint));
    const fn = wrapper(require, module, module.exports, sourcePath, '/work');
    const kwargs = call.kwargs || {};
    const args = (call.args || []).concat(Object.keys(kwargs).length ? [kwargs] : []);
    let value = await fn(...args);
    if (value === undefined) value = null;
    let encoded;
    try {
      encoded = JSON.parse(stringify(value));
    } catch (error) {
      report({ status: 'unserializable', message: `return value: ${error.message}` }, 0);
    }
    report({ status: 'ok', value: encoded }, 0);
  } else if (mode === 'assert') {
    const runChecks = `${testText}\n;if (typeof check === 'function') { return check(${entryPoint}); }`;
    const wrapper = load(runChecks);
    await wrapper(require, module, module.exports, sourcePath, '/work');
    report({ status: 'ok' }, 0);
  } else {
    report({ status: 'exception', type: 'HarnessError', message: `unknown mode ${mode}` }, 1);
  }
}

main().catch((error) => {
  console.error(error);
  report(describe(error), 1);
});
