#!/usr/bin/env node
// The values reference of charts/assay, generated from values.schema.json (key, type, constraints,
// description) and values.yaml (defaults), written between the markers
//   <!-- values-reference:start --> ... <!-- values-reference:end -->
// of docs/deploy.md.
//
//   node scripts/charts/values-reference.mjs            # rewrite the section
//   node scripts/charts/values-reference.mjs --check    # exit 1 when the section is out of date
//   options: --doc FILE (default docs/deploy.md), --chart DIR (default charts/assay)
//
// Layout: one table of the chart-wide values; the per-component block (a definition that two or more
// top-level keys reference, e.g. `definitions/component`) documented once, with every component's default
// where they differ; and the shared types (definitions referenced from more than one place). A definition
// referenced from one place only is expanded where it is used. Every property must have a description:
// a missing one is an error (the section is still written).
// yaml is resolved from .cache/node-tools (scripts/charts/install-tools.sh), prettier from the root
// node_modules (a devDependency); the generated section is formatted with the repository's prettier config.
import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START = '<!-- values-reference:start -->';
const END = '<!-- values-reference:end -->';
const REGENERATE = 'node scripts/charts/values-reference.mjs';

function fail(message, code = 1) {
  console.error(`values-reference: ${message}`);
  process.exit(code);
}

function requireFrom(dirs, name) {
  for (const dir of dirs) {
    const modules = path.join(root, dir, 'node_modules');
    if (existsSync(path.join(modules, name, 'package.json'))) return createRequire(`${modules}/`)(name);
  }
  return fail(
    `cannot find the "${name}" package in ${dirs.map((d) => path.join(d, 'node_modules')).join(' or ')}` +
      (name === 'yaml' ? ' (run scripts/charts/install-tools.sh)' : ' (run npm ci)'),
    2,
  );
}
const YAML = requireFrom(['.cache/node-tools', '.'], 'yaml');
const prettier = requireFrom(['.'], 'prettier');

// ---- arguments
const args = process.argv.slice(2);
let check = false;
let docPath = 'docs/deploy.md';
let chartDir = 'charts/assay';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--check') check = true;
  else if (args[i] === '--doc' && args[i + 1]) docPath = args[++i];
  else if (args[i] === '--chart' && args[i + 1]) chartDir = args[++i];
  else fail(`unknown argument "${args[i]}" (usage: values-reference.mjs [--check] [--doc FILE] [--chart DIR])`, 2);
}
const abs = (p) => path.resolve(root, p);
const rel = (p) => path.relative(root, abs(p)) || '.';
const schemaFile = rel(path.join(chartDir, 'values.schema.json'));
const valuesFile = rel(path.join(chartDir, 'values.yaml'));
docPath = rel(docPath);
const schema = JSON.parse(readFileSync(abs(schemaFile), 'utf8'));
const values = YAML.parse(readFileSync(abs(valuesFile), 'utf8')) ?? {};

// ---- definitions and how often each is referenced
const defs = { ...(schema.definitions ?? {}), ...(schema.$defs ?? {}) };
function refName(ref) {
  const m = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref ?? '');
  if (!m || !(m[1] in defs)) fail(`${schemaFile}: unresolvable $ref "${ref}"`);
  return m[1];
}
const refCount = {};
(function countRefs(node) {
  if (Array.isArray(node)) return node.forEach(countRefs);
  if (!node || typeof node !== 'object') return;
  if (typeof node.$ref === 'string') refCount[refName(node.$ref)] = (refCount[refName(node.$ref)] ?? 0) + 1;
  for (const v of Object.values(node)) countRefs(v);
})(schema);
// Blocks: definitions with properties that two or more top-level keys use (the per-component block).
const blockUsers = {};
for (const [key, prop] of Object.entries(schema.properties ?? {})) {
  if (prop.$ref && defs[refName(prop.$ref)].properties) (blockUsers[refName(prop.$ref)] ??= []).push(key);
}
for (const name of Object.keys(blockUsers)) if (blockUsers[name].length < 2) delete blockUsers[name];
const isBlock = (name) => name in blockUsers;
const isSharedType = (name) => !isBlock(name) && (refCount[name] ?? 0) > 1;

// ---- cells
const code = (s) => {
  const text = String(s);
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
};
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const anchor = (title) =>
  '#' +
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
const SHARED_TYPES = 'Shared types';
const blockTitle = (name) => `The ${name} block`;
const differTitle = (name) => `Where the ${name} blocks differ`;
let blockOfTable = '';
const typeLink = (name) => (isBlock(name) ? `[${name} block](${anchor(blockTitle(name))})` : `[${name}](${anchor(SHARED_TYPES)})`);

function flow(value) {
  return YAML.stringify(value, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trim();
}

function bounds(s) {
  const parts = [];
  if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`${s.minimum}–${s.maximum}`);
  else if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  else if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.exclusiveMinimum !== undefined) parts.push(`> ${s.exclusiveMinimum}`);
  if (s.exclusiveMaximum !== undefined) parts.push(`< ${s.exclusiveMaximum}`);
  if (s.minLength > 0) parts.push(s.minLength === 1 ? 'non-empty' : `≥ ${s.minLength} characters`);
  if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength} characters`);
  if (s.minItems > 0) parts.push(`≥ ${s.minItems} items`);
  return parts.join(', ');
}

function typeOf(s) {
  if (s.$ref) return typeLink(refName(s.$ref));
  if (s.const !== undefined) return code(flow(s.const));
  if (s.enum) return s.enum.map((v) => code(flow(v))).join(', ');
  let t;
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes('array') && s.items) {
    const it = s.items;
    const item = it.$ref ? typeLink(refName(it.$ref)) : it.properties ? 'object' : typeOf(it);
    t = /[ ,|]/.test(item) ? `list of ${item}` : `${item}[]`;
  } else if (types.includes('object') && !s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
    t = `map of ${typeOf(s.additionalProperties)}`;
  } else if (types.length) {
    t = types.join(' | ');
  } else if (s.anyOf || s.oneOf) {
    t = (s.anyOf ?? s.oneOf).map(typeOf).join(' | ');
  } else t = 'any';
  const b = bounds(s);
  return b ? `${t} (${b})` : t;
}

// ---- rows: walk the schema, expanding inline objects and once-used definitions
const missing = [];
function described(s, where) {
  const text = s.description ?? (s.$ref ? defs[refName(s.$ref)].description : undefined);
  if (!text) missing.push(where);
  return text ?? '';
}

/** Rows of one property: [{key, schema, description, path}] (path: keys below the table's root). */
function rowsOf(s, key, pathKeys) {
  const rows = [{ key, schema: s, description: described(s, key), path: pathKeys }];
  let target = s;
  if (s.$ref) {
    const name = refName(s.$ref);
    if (isBlock(name) || isSharedType(name)) return rows;
    target = defs[name];
  }
  for (const [k, sub] of Object.entries(target.properties ?? {})) rows.push(...rowsOf(sub, `${key}.${k}`, pathKeys && [...pathKeys, k]));
  const items = target.items;
  if (
    items &&
    !Array.isArray(items) &&
    (items.properties || (items.$ref && !isSharedType(refName(items.$ref)) && !isBlock(refName(items.$ref))))
  ) {
    const it = items.$ref ? defs[refName(items.$ref)] : items;
    for (const [k, sub] of Object.entries(it.properties ?? {})) rows.push(...rowsOf(sub, `${key}[].${k}`, null));
  }
  return rows;
}

function lookup(obj, keys) {
  let v = obj;
  for (const k of keys) {
    if (v === null || typeof v !== 'object' || !(k in v)) return undefined;
    v = v[k];
  }
  return v;
}

function isExpanded(s) {
  if (s.$ref) {
    const name = refName(s.$ref);
    return !isBlock(name) && !isSharedType(name) && !!defs[name].properties;
  }
  return !!s.properties;
}

function defaultCell(row, sources) {
  if (row.path === null || isExpanded(row.schema) || (row.schema.$ref && isBlock(refName(row.schema.$ref)))) return '';
  const found = sources.map(([who, obj]) => [who, lookup(obj, row.path)]);
  const shown = (v) => (v === undefined ? '—' : code(flow(v)));
  const distinct = [...new Set(found.map(([, v]) => shown(v)))];
  if (distinct.length === 1) return distinct[0];
  return `per component, [see below](${anchor(differTitle(blockOfTable))})`;
}

/** Leaves (scalars, lists, empty maps) of a default value, by dotted path. */
function leaves(value, prefix, out) {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.set(prefix, value);
  return out;
}

/** A table of the defaults that differ between the blocks of one definition: one row per leaf, one column per block. */
function differTable(def, users) {
  const byUser = users.map((u) => leaves(values[u] ?? {}, '', new Map()));
  let keys = [];
  for (const m of byUser) for (const k of m.keys()) if (!keys.includes(k)) keys.push(k);
  // An empty map in one block and keys under it in another: the keys are the rows.
  keys = keys.filter((k) => !keys.some((other) => other.startsWith(`${k}.`)));
  // In the order of the definition's properties.
  const order = Object.keys(def.properties ?? {});
  const rank = (k) => {
    const i = order.indexOf(k.split('.')[0]);
    return i < 0 ? order.length : i;
  };
  keys = keys
    .map((k, i) => [k, i])
    .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
    .map(([k]) => k);
  const shown = (v) => (v === undefined ? '—' : code(flow(v)));
  const lines = [`| Key | ${users.map(code).join(' | ')} |`, `| --- | ${users.map(() => '---').join(' | ')} |`];
  for (const k of keys) {
    const cells = byUser.map((m) => shown(m.get(k)));
    if (new Set(cells).size > 1) lines.push(`| ${code(k)} | ${cells.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

function table(rows, sources, withDefault = true) {
  const head = withDefault ? ['Key', 'Type', 'Default', 'Description'] : ['Key', 'Type', 'Description'];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) {
    const cells = [code(r.key), typeOf(r.schema)];
    if (withDefault) cells.push(defaultCell(r, sources));
    cells.push(r.description);
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

// ---- the section
const out = [
  START,
  '',
  `<!-- Generated from ${schemaFile} and ${valuesFile} by \`${REGENERATE}\`; do not edit by hand. -->`,
  '',
  '#### Chart-wide values',
  '',
];
const topRows = [];
for (const [k, s] of Object.entries(schema.properties ?? {})) topRows.push(...rowsOf(s, k, [k]));
out.push(table(topRows, [['', values]]), '');

for (const [name, users] of Object.entries(blockUsers)) {
  const def = defs[name];
  out.push(`#### ${blockTitle(name)}`, '');
  out.push(
    `${cell(described(def, `definitions/${name}`))} Keys are relative to each block: \`replicaCount\` is ` +
      `${users.map((u) => `\`${u}.replicaCount\``).join(', ')}.`,
    '',
  );
  const rows = [];
  for (const [k, s] of Object.entries(def.properties)) rows.push(...rowsOf(s, k, [k]));
  blockOfTable = name;
  out.push(
    table(
      rows,
      users.map((u) => [u, values[u] ?? {}]),
    ),
    '',
  );
  out.push(`#### ${differTitle(name)}`, '', 'Defaults (from values.yaml) that are not the same in every block; — means unset.', '');
  out.push(differTable(def, users), '');
}

const shared = Object.keys(defs).filter((n) => isSharedType(n));
if (shared.length) {
  out.push(`#### ${SHARED_TYPES}`, '');
  const rows = [];
  for (const name of shared) rows.push(...rowsOf({ ...defs[name], $ref: undefined }, name, null));
  out.push(table(rows, [], false), '');
}
out.push(END);

const config = (await prettier.resolveConfig(abs(docPath))) ?? {};
const section = (await prettier.format(out.join('\n') + '\n', { ...config, parser: 'markdown' })).trimEnd();

// ---- compare or write
if (!existsSync(abs(docPath))) fail(`${docPath} does not exist`);
const doc = readFileSync(abs(docPath), 'utf8');
const a = doc.indexOf(START);
const b = doc.indexOf(END);
if (a < 0 || b < a || doc.indexOf(START, a + 1) >= 0 || doc.indexOf(END, b + 1) >= 0) {
  fail(`${docPath} must contain "${START}" and then "${END}", once each`);
}
const current = doc.slice(a, b + END.length);
const uniqueMissing = [...new Set(missing)];
const missingNote = uniqueMissing.length
  ? `${schemaFile}: no description for ${uniqueMissing.join(', ')} (add a "description" to each)`
  : '';

if (check) {
  if (current !== section) {
    const want = section.split('\n');
    const have = current.split('\n');
    let i = 0;
    while (i < want.length && want[i] === have[i]) i++;
    console.error(`values-reference: ${docPath} is out of date with ${schemaFile} / ${valuesFile}; run \`${REGENERATE}\`.`);
    console.error(`  first difference, line ${i + 1} of the section:`);
    console.error(`  - ${have[i] ?? '(end of section)'}`);
    console.error(`  + ${want[i] ?? '(end of section)'}`);
    if (missingNote) console.error(`values-reference: ${missingNote}`);
    process.exit(1);
  }
  if (missingNote) fail(missingNote);
  console.log(
    `values-reference: ${docPath} is up to date (${topRows.length} chart-wide rows, ${Object.keys(blockUsers).length} block(s), ${shared.length} shared types)`,
  );
} else {
  const next = doc.slice(0, a) + section + doc.slice(b + END.length);
  if (next !== doc) writeFileSync(abs(docPath), next);
  console.log(`values-reference: ${next === doc ? 'already up to date' : 'wrote'} ${docPath}`);
  if (missingNote) fail(missingNote);
}
