#!/usr/bin/env node
// Builds the two distributable files from src/ with no tools but Node:
//   dist/cloudkit.mjs  one ES module (default export CloudKit, plus named exports)
//   dist/cloudkit.js   a classic script that sets window.CloudKit (globalThis.CloudKit); under
//                      CommonJS (require) it is also module.exports
// Each source module becomes a function scope in dependency order; its imports become reads of
// the modules before it. `node build.mjs --check` exits 1 when dist/ differs from a fresh build.
import {readFileSync, writeFileSync, mkdirSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const ENTRY = 'index.js';

function parse(name) {
    let text = readFileSync(join(root, 'src', name), 'utf8');
    const imports = [];
    text = text.replace(/^import\s+(\*\s+as\s+(\w+)|\{([^}]*)\})\s+from\s+'\.\/([\w.-]+)';\n/gm, (_, __, star, names, from) => {
        imports.push({from, star, names: names && names.split(',').map((n) => n.trim()).filter(Boolean)});
        return '';
    });
    if (/^import\b/m.test(text)) throw new Error(`src/${name}: an import this build does not understand (only import {…} / * as … from './x.js')`);
    const exports = [];
    text = text.replace(/^export default (\w+);\n/m, (_, value) => { exports.push(`default: ${value}`); return ''; });
    text = text.replace(/^export\s*\{([^}]*)\};?\n/gm, (_, list) => {
        for (const item of list.split(',').map((n) => n.trim()).filter(Boolean)) {
            const [local, exported = local] = item.split(/\s+as\s+/);
            exports.push(exported === local ? local : `${exported}: ${local}`);
        }
        return '';
    });
    text = text.replace(/^export const \{([^}]*)\}/gm, (_, list) => {
        exports.push(...list.split(',').map((n) => n.trim()).filter(Boolean));
        return `const {${list}}`;
    });
    text = text.replace(/^export (const|let|function|class|async function) (\w+)/gm, (_, kind, id) => {
        exports.push(id);
        return `${kind} ${id}`;
    });
    if (/^export\b/m.test(text)) throw new Error(`src/${name}: an export this build does not understand`);
    return {name, text, imports, exports};
}

// Modules in dependency order, starting from the entry.
function ordered() {
    const done = new Map();
    const visit = (name, stack) => {
        if (done.has(name)) return;
        if (stack.includes(name)) throw new Error(`import cycle: ${[...stack, name].join(' -> ')}`);
        const module = parse(name);
        for (const dependency of module.imports) visit(dependency.from, [...stack, name]);
        done.set(name, module);
    };
    visit(ENTRY, []);
    return [...done.values()];
}

const variable = (name) => `$${name.replace(/\W/g, '_')}`;

function bundle() {
    const modules = ordered();
    const parts = modules.map((module) => {
        const head = module.imports.map(({from, star, names}) => (star ? `const ${star} = ${variable(from)};` :
            `const {${names.map((n) => n.replace(/\s+as\s+/, ': ')).join(', ')}} = ${variable(from)};`));
        return `// src/${module.name}\nconst ${variable(module.name)} = (() => {\n${head.join('\n')}${head.length ? '\n' : ''}` +
            `${module.text.trim()}\nreturn {${module.exports.join(', ')}};\n})();\n`;
    });
    const entry = modules[modules.length - 1];
    const named = entry.exports.filter((e) => !e.startsWith('default')).map((e) => e.split(':')[0]);
    const banner = '// Stratus CloudKit JS SDK: a JavaScript client with CloudKit JS\'s API for a Stratus server.\n' +
        '// Built by Clients/javascript/build.mjs from Clients/javascript/src; do not edit.\n';
    // Compact without a minifier: whole-line comments, indentation and blank lines go (src/ keeps
    // them); nothing inside a line changes, so the code is exactly what src/ says.
    const body = parts.join('\n').split('\n').map((line) => line.trim())
        .filter((line) => line && !line.startsWith('//')).join('\n');
    const esm = `${banner}${body}\nexport default ${variable(ENTRY)}.default;\nexport const {${named.join(', ')}} = ${variable(ENTRY)};\n`;
    const classic = `${banner}(function () {\n'use strict';\n${body}\nglobalThis.CloudKit = ${variable(ENTRY)}.default;\n` +
        `if (typeof module === 'object' && module && module.exports) module.exports = globalThis.CloudKit;\n})();\n`;
    return {'cloudkit.mjs': esm, 'cloudkit.js': classic};
}

const files = bundle();
if (process.argv.includes('--check')) {
    const stale = Object.keys(files).filter((file) => {
        try { return readFileSync(join(root, 'dist', file), 'utf8') !== files[file]; } catch { return true; }
    });
    if (stale.length) {
        console.error(`dist/ is out of date (${stale.join(', ')}); run: node Clients/javascript/build.mjs`);
        process.exit(1);
    }
    console.log('dist/ matches src/');
} else {
    mkdirSync(join(root, 'dist'), {recursive: true});
    for (const [file, text] of Object.entries(files)) {
        writeFileSync(join(root, 'dist', file), text);
        console.log(`dist/${file}: ${Buffer.byteLength(text)} bytes`);
    }
}
