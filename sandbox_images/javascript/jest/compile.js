// The `jest` language's compile step: the program, a TypeScript (or JavaScript) test file as
// SandboxFusion takes it, becomes the CommonJS file jest runs, through Babel's TypeScript preset
// and ES-module transform (SandboxFusion runs jest through Babel too). A syntax error is a
// compile error, reported here, rather than a failed suite.
'use strict';

const fs = require('fs');
const home = '/opt/judge/jest/node_modules';
const babel = require(`${home}/@babel/core`);

const [source, target] = process.argv.slice(2);
let result;
try {
  result = babel.transformSync(fs.readFileSync(source, 'utf8'), {
    filename: source,
    babelrc: false,
    configFile: false,
    // Line numbers in a failure's stack are the program's own.
    retainLines: true,
    presets: [`${home}/@babel/preset-typescript`],
    plugins: [`${home}/@babel/plugin-transform-modules-commonjs`],
  });
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
fs.writeFileSync(target, result.code);
