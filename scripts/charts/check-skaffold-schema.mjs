#!/usr/bin/env node
// Validates every document of a skaffold config against skaffold's JSON schema for its apiVersion
// (the draft-07 files shipped in the skaffold Go module: docs-v2/content/en/schemas/<version>.json).
//
//   node scripts/charts/check-skaffold-schema.mjs SCHEMA_DIR_OR_FILE [skaffold.yaml [BASE_DIR]]
//
// Every profile is applied (patches, replaced sections) and the result validated too; the files the
// config names (Dockerfiles, chart, values files) must exist, relative to BASE_DIR (default: the
// config's folder, as skaffold resolves them).
// SCHEMA_DIR_OR_FILE: a folder of <version>.json files (picked by each document's apiVersion), or one
// schema file used for every document. Exit 0 when valid, 1 on any error.
// ajv and yaml are root devDependencies (locked like every other package).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import YAML from 'yaml';

const [schemaArg, configArg = 'skaffold.yaml', baseArg] = process.argv.slice(2);
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
  const report = (label, config) => {
    if (validate(config)) return true;
    failed = true;
    for (const e of validate.errors) {
      const extra = e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : '';
      console.error(`${label}: ${e.instancePath || '/'} ${e.message}${extra}`);
    }
    return false;
  };
  if (!report(where, value)) return;
  // Each profile as skaffold would apply it: its JSON patches and replaced sections on the base config;
  // the result must be valid too, and every file it names (Dockerfile, chart, values files) must exist.
  for (const profile of [{ name: '(no profile)' }, ...(value.profiles ?? [])]) {
    const label = `${where} profile ${profile.name}`;
    let config;
    try {
      config = applyProfile(value, profile);
    } catch (e) {
      failed = true;
      console.error(`${label}: ${e.message}`);
      continue;
    }
    if (report(label, config)) checkFiles(label, config);
  }
});

/** The base config with a profile applied (RFC 6902 add/replace/remove patches, then replaced sections). */
function applyProfile(base, profile) {
  const config = structuredClone(base);
  delete config.profiles;
  for (const op of profile.patches ?? []) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop();
    let parent = config;
    for (const k of keys) {
      if (parent === null || typeof parent !== 'object' || !(k in parent)) throw new Error(`patch ${op.op} ${op.path}: no ${k}`);
      parent = parent[k];
    }
    if (op.op === 'add') {
      if (Array.isArray(parent) && last === '-') parent.push(op.value);
      else if (Array.isArray(parent)) parent.splice(Number(last), 0, op.value);
      else parent[last] = op.value;
    } else if (op.op === 'replace' || op.op === 'remove') {
      if (!(last in parent)) throw new Error(`patch ${op.op} ${op.path}: nothing at that path`);
      if (op.op === 'replace') parent[last] = op.value;
      else if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else throw new Error(`patch op ${op.op} is not checked here; use add, replace or remove`);
  }
  for (const section of ['build', 'test', 'render', 'deploy', 'portForward', 'manifests', 'verify']) {
    if (profile[section] !== undefined) config[section] = profile[section];
  }
  return config;
}

function checkFiles(label, config) {
  const base = baseArg ? path.resolve(baseArg) : path.dirname(path.resolve(configArg));
  const files = [];
  for (const a of config.build?.artifacts ?? []) {
    if (a.docker) files.push(path.join(a.context ?? '.', a.docker.dockerfile ?? 'Dockerfile'));
  }
  for (const r of config.deploy?.helm?.releases ?? []) {
    if (r.chartPath) files.push(r.chartPath);
    files.push(...(r.valuesFiles ?? []));
  }
  for (const f of files) {
    try {
      statSync(path.resolve(base, f));
    } catch {
      failed = true;
      console.error(`${label}: ${f} does not exist`);
    }
  }
}
if (!failed && checked === 0) {
  console.error(`${configArg}: no skaffold document found`);
  failed = true;
}
console.log(`${configArg}: ${failed ? 'INVALID' : `valid (${checked} document${checked === 1 ? '' : 's'})`}`);
process.exit(failed ? 1 : 0);
