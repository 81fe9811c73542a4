#!/usr/bin/env node
// Validates every document of a skaffold config against skaffold's JSON schema for its apiVersion
// (the draft-07 files shipped in the skaffold Go module: docs-v2/content/en/schemas/<version>.json).
//
//   node scripts/charts/check-skaffold-schema.mjs SCHEMA_DIR_OR_FILE [skaffold.yaml]
//
// SCHEMA_DIR_OR_FILE: a folder of <version>.json files (picked by each document's apiVersion), or one
// schema file used for every document. Exit 0 when valid, 1 on any error.
// ajv and yaml are resolved from .cache/node-tools (scripts/charts/install-tools.sh installs them), so
// the root package.json stays untouched.
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, '.cache/node-tools/node_modules/'));
const Ajv = require('ajv').default;
const YAML = require('yaml');

const [schemaArg, configArg = 'skaffold.yaml'] = process.argv.slice(2);
if (!schemaArg) {
  console.error('usage: check-skaffold-schema.mjs SCHEMA_DIR_OR_FILE [skaffold.yaml]');
  process.exit(2);
}
const schemaIsDir = statSync(schemaArg).isDirectory();
// The schemas use non-standard keywords (preferredOrder, x-intellij-html-description): strict off.
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map();
function validatorFor(apiVersion) {
  const file = schemaIsDir ? path.join(schemaArg, `${String(apiVersion).replace(/^skaffold\//, '')}.json`) : schemaArg;
  if (!validators.has(file)) validators.set(file, ajv.compile(JSON.parse(readFileSync(file, 'utf8'))));
  return validators.get(file);
}

const docs = YAML.parseAllDocuments(readFileSync(configArg, 'utf8'));
let failed = false;
let checked = 0;
docs.forEach((doc, i) => {
  const where = `${configArg} document ${i + 1}`;
  if (doc.errors.length) {
    failed = true;
    for (const e of doc.errors) console.error(`${where}: YAML: ${e.message}`);
    return;
  }
  const value = doc.toJS();
  if (value === null || value === undefined) return; // empty document
  if (!/^skaffold\/v\w+$/.test(String(value.apiVersion))) {
    failed = true;
    console.error(`${where}: apiVersion must be skaffold/<version>, got ${JSON.stringify(value.apiVersion)}`);
    return;
  }
  let validate;
  try {
    validate = validatorFor(value.apiVersion);
  } catch (e) {
    failed = true;
    console.error(`${where}: no schema for ${value.apiVersion}: ${e.message}`);
    return;
  }
  checked++;
  if (!validate(value)) {
    failed = true;
    for (const e of validate.errors) {
      const extra = e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : '';
      console.error(`${where}: ${e.instancePath || '/'} ${e.message}${extra}`);
    }
  }
});
if (!failed && checked === 0) {
  console.error(`${configArg}: no skaffold document found`);
  failed = true;
}
console.log(`${configArg}: ${failed ? 'INVALID' : `valid (${checked} document${checked === 1 ? '' : 's'})`}`);
process.exit(failed ? 1 : 0);
