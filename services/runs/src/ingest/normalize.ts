/**
 * Every report format (the streaming API's per-test items, a Playwright JSON report, JUnit XML) becomes the
 * same normalized shape before it is stored; JSON reports arrive here one spec or one item at a time from the
 * streaming parser (./stream.ts). Parsing is defensive: the first problem found is a 400 VALIDATION_ERROR whose
 * detail path names where it is (`body.suites[0].specs[3].tests[0].results[1].status`), and the transaction that
 * was writing the report rolls back. The stored pieces (errors, steps, attachments) have the contract's shapes
 * (@assay/contracts/runs/debug-bundle), texts its limits (REPORT_TEXT_LIMITS), names and nesting REPORT_SHAPE_LIMITS.
 */
import { AppError } from '@assay/errors';
import type { AnnotationJson, AttachmentJson, SourceLocation, StepJson, TestErrorJson } from '@assay/contracts/runs/debug-bundle';
import { ATTEMPT_STATUSES, oneOf, REPORT_SHAPE_LIMITS, REPORT_TEXT_LIMITS, type AttemptStatusName } from '@assay/contracts/runs/values';
import { HTTP_URL_MESSAGE, isHttpUrl } from '@assay/contracts/common/url';
import { characterCount } from '@assay/contracts/common/text';

export interface NormAttempt {
  retry: number;
  status: AttemptStatusName;
  durationMs: number;
  startTime?: string;
  workerIndex?: number;
  errors: TestErrorJson[];
  steps: StepJson[];
  stdout: string[];
  stderr: string[];
  attachments: AttachmentJson[];
}

export interface NormTest {
  file: string;
  titlePath: string[];
  projectName: string;
  expectedStatus: AttemptStatusName;
  annotations: AnnotationJson[];
  tags: string[];
  location?: SourceLocation;
  attempts: NormAttempt[];
  /** The shard of a sharded build that ran it (streaming API items only). */
  shard?: number;
}

export interface NormMetadata {
  branch: string;
  environment: string;
  commit: { hash: string; message: string; author: string };
  ci: Record<string, unknown>;
  tags: string[];
  extra: Record<string, unknown>;
}

/** What a one-shot report says beside its tests (read while or after its tests are written). */
export interface ReportTrailer {
  metadata: NormMetadata;
  startTime?: string;
  durationMs?: number;
  errors: TestErrorJson[];
  coverage?: Record<string, unknown>;
}

/** Receives a report's tests a chunk at a time, in order. */
export type TestSink = (tests: NormTest[]) => Promise<void>;
/** Reads a report, handing its tests to the sink as it goes; answers the rest once the report has been read. */
export type ReportReader = (sink: TestSink) => Promise<ReportTrailer>;

const { maxText: MAX_TEXT, maxStepTitle: MAX_STEP_TITLE, maxOutputLines: MAX_LINES, maxStepDepth: MAX_STEP_DEPTH } = REPORT_TEXT_LIMITS;
const { maxTitle: MAX_TITLE, maxTitlePath: MAX_TITLE_PATH } = REPORT_SHAPE_LIMITS;

export class ReportError extends AppError {
  constructor(path: string, message: string) {
    super('VALIDATION_ERROR', `${path}: ${message}`, { details: [{ path, message }] });
  }
}

type Json = unknown;
const isObj = (v: Json): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function obj(v: Json, path: string): Record<string, unknown> {
  if (!isObj(v)) throw new ReportError(path, 'must be an object');
  return v;
}
function arr(v: Json, path: string, optional = true): unknown[] {
  if (v === undefined || v === null) {
    if (optional) return [];
    throw new ReportError(path, 'is required');
  }
  if (!Array.isArray(v)) throw new ReportError(path, 'must be an array');
  return v;
}
function str(v: Json, path: string, fallback?: string): string {
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ReportError(path, 'is required');
  }
  if (typeof v !== 'string') throw new ReportError(path, 'must be a string');
  return v;
}
function optStr(v: Json, path: string): string | undefined {
  return v === undefined || v === null ? undefined : str(v, path);
}
/** A title, file path or project name: refused beyond MAX_TITLE characters (it is part of the test's identity). */
function name(v: string, path: string): string {
  if (characterCount(v) > MAX_TITLE) throw new ReportError(path, `must be at most ${MAX_TITLE} characters`);
  return v;
}
function titlePathOf(titles: string[], path: string): string[] {
  if (titles.length > MAX_TITLE_PATH) throw new ReportError(path, `must have at most ${MAX_TITLE_PATH} elements`);
  titles.forEach((t, i) => name(t, `${path}[${i}]`));
  return titles;
}
function num(v: Json, path: string, fallback?: number): number {
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ReportError(path, 'is required');
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ReportError(path, 'must be a non-negative number');
  return v;
}
function date(v: Json, path: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const s = typeof v === 'number' ? new Date(v).toISOString() : str(v, path);
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) throw new ReportError(path, 'must be a date-time');
  return d.toISOString();
}
function status(v: Json, path: string, fallback?: AttemptStatusName): AttemptStatusName {
  if ((v === undefined || v === null) && fallback) return fallback;
  if (!oneOf(ATTEMPT_STATUSES, v)) throw new ReportError(path, `must be one of ${ATTEMPT_STATUSES.join(', ')}`);
  return v;
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes in reporter output
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
export const stripAnsi = (s: string) => s.replace(ANSI, '');
const cap = (s: string, n = MAX_TEXT) => (s.length > n ? `${s.slice(0, n)}…` : s);

function location(v: Json, path: string): SourceLocation | undefined {
  if (v === undefined || v === null) return undefined;
  const o = obj(v, path);
  return { file: str(o.file, `${path}.file`, ''), line: num(o.line, `${path}.line`, 0), column: num(o.column, `${path}.column`, 0) };
}

function error(v: Json, path: string): TestErrorJson {
  if (typeof v === 'string') return { message: cap(stripAnsi(v)) };
  const o = obj(v, path);
  const message = optStr(o.message, `${path}.message`) ?? optStr(o.value, `${path}.value`) ?? '';
  return {
    message: cap(stripAnsi(message)),
    stack: o.stack === undefined || o.stack === null ? undefined : cap(stripAnsi(str(o.stack, `${path}.stack`))),
    location: location(o.location, `${path}.location`),
    snippet: o.snippet === undefined || o.snippet === null ? undefined : cap(stripAnsi(str(o.snippet, `${path}.snippet`))),
  };
}

/** `${p}.${name}`, or '' without a path (see `steps`). */
const field = (p: string | undefined, name: string) => (p === undefined ? '' : `${p}.${name}`);

/**
 * A step tree. Without `path` its fields' paths are not built: a report holds several steps an attempt (the bench's
 * 10,000 tests 66,000), and their paths, which only an error uses, were 6 % of what an upload of the bench's report
 * allocated (sampled heap profile: 11 MB an upload; more with deeper trees). `stepsOf` reads again with them when a
 * step is wrong.
 */
function steps(v: Json, path: string | undefined, depth = 0): StepJson[] {
  const list = arr(v, path ?? '');
  if (depth >= MAX_STEP_DEPTH) return [];
  return list.map((s, i) => {
    const p = path === undefined ? undefined : `${path}[${i}]`;
    const o = obj(s, p ?? '');
    return {
      title: cap(str(o.title, field(p, 'title')), MAX_STEP_TITLE),
      category: optStr(o.category, field(p, 'category')),
      duration: num(o.duration, field(p, 'duration'), 0),
      error: o.error === undefined || o.error === null ? undefined : error(o.error, field(p, 'error')),
      steps: steps(o.steps, p === undefined ? undefined : `${p}.steps`, depth + 1),
    };
  });
}

/** The steps of the attempt at `path`; a wrong step is read again with paths, to be refused at its place. */
function stepsOf(v: Json, path: string): StepJson[] {
  try {
    return steps(v, undefined);
  } catch (err) {
    if (err instanceof ReportError) return steps(v, `${path}.steps`);
    throw err;
  }
}

function output(v: Json, path: string): string[] {
  const out: string[] = [];
  let size = 0;
  for (const [i, item] of arr(v, path).entries()) {
    let text: string;
    if (typeof item === 'string') text = item;
    else {
      const o = obj(item, `${path}[${i}]`);
      if (typeof o.text === 'string') text = o.text;
      else if (typeof o.buffer === 'string') text = Buffer.from(o.buffer, 'base64').toString('utf8');
      else throw new ReportError(`${path}[${i}]`, 'must have text or buffer');
    }
    if (out.length >= MAX_LINES || size >= MAX_TEXT) continue;
    text = stripAnsi(text);
    size += text.length;
    out.push(cap(text, MAX_TEXT));
  }
  return out;
}

function attachments(v: Json, path: string): AttachmentJson[] {
  return arr(v, path).map((a, i) => {
    const p = `${path}[${i}]`;
    const o = obj(a, p);
    const body = optStr(o.body, `${p}.body`);
    return {
      name: str(o.name, `${p}.name`),
      contentType: str(o.contentType, `${p}.contentType`, 'application/octet-stream'),
      path: optStr(o.path, `${p}.path`),
      size: body !== undefined ? Math.floor((body.length * 3) / 4) : undefined,
    };
  });
}

function annotations(v: Json, path: string): AnnotationJson[] {
  return arr(v, path).map((a, i) => {
    const o = obj(a, `${path}[${i}]`);
    const description = optStr(o.description, `${path}[${i}].description`);
    return description === undefined
      ? { type: str(o.type, `${path}[${i}].type`) }
      : { type: str(o.type, `${path}[${i}].type`), description };
  });
}

function tagList(v: Json, path: string): string[] {
  if (typeof v === 'string')
    return v
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  return arr(v, path).map((t, i) => str(t, `${path}[${i}]`));
}

/** One attempt in Playwright's JSON reporter shape (`TestResult`). */
function attempt(v: Json, path: string, index: number): NormAttempt {
  const o = obj(v, path);
  const errs = arr(o.errors, `${path}.errors`).map((e, i) => error(e, `${path}.errors[${i}]`));
  if (errs.length === 0 && o.error !== undefined && o.error !== null) errs.push(error(o.error, `${path}.error`));
  return {
    retry: o.retry === undefined ? index : Math.floor(num(o.retry, `${path}.retry`)),
    status: status(o.status, `${path}.status`),
    durationMs: Math.round(num(o.duration, `${path}.duration`, 0)),
    startTime: date(o.startTime, `${path}.startTime`),
    workerIndex: o.workerIndex === undefined ? undefined : num(o.workerIndex, `${path}.workerIndex`),
    errors: errs,
    steps: stepsOf(o.steps, path),
    stdout: output(o.stdout, `${path}.stdout`),
    stderr: output(o.stderr, `${path}.stderr`),
    attachments: attachments(o.attachments, `${path}.attachments`),
  };
}

// ---- metadata --------------------------------------------------------------------------------------------

/** Ingestion API metadata and the compatibility upload's metadata, read into one shape. */
export function normalizeMetadata(v: Json, path = 'body.metadata'): NormMetadata {
  const m = v === undefined || v === null ? {} : obj(v, path);
  const git = m.git === undefined || m.git === null ? {} : obj(m.git, `${path}.git`);
  const commit = git.commit === undefined || git.commit === null ? {} : obj(git.commit, `${path}.git.commit`);
  const ci = m.ci === undefined || m.ci === null ? {} : obj(m.ci, `${path}.ci`);
  const test = isObj(m.test) ? m.test : {};
  const tags = [
    ...tagList(m.tags, `${path}.tags`),
    ...(Array.isArray(test.customTags) ? test.customTags.filter((t): t is string => typeof t === 'string') : []),
  ];
  const env = optStr(m.environment, `${path}.environment`) ?? optStr(git.environment, `${path}.git.environment`) ?? '';
  const links: [Json, string][] = [
    [ci.buildUrl, `${path}.ci.buildUrl`],
    [isObj(ci.pipeline) ? ci.pipeline.url : undefined, `${path}.ci.pipeline.url`],
    [isObj(git.repository) ? git.repository.url : undefined, `${path}.git.repository.url`],
  ];
  for (const [url, at] of links) if (typeof url === 'string' && url !== '' && !isHttpUrl(url)) throw new ReportError(at, HTTP_URL_MESSAGE);
  const extra: Record<string, unknown> = {};
  for (const k of ['system', 'pr', 'repository'] as const) {
    const value = k === 'system' ? m.system : git[k];
    if (value !== undefined) extra[k] = value;
  }
  // tdpw --upload-html: the URL of the HTML report it uploaded (its files are linked to the run).
  const html = isObj(m.azureUpload) ? m.azureUpload.url : undefined;
  if (typeof html === 'string' && isHttpUrl(html) && html.length <= 2000) extra.htmlReportUrl = html;
  return {
    branch: optStr(git.branch, `${path}.git.branch`) ?? optStr(m.branch, `${path}.branch`) ?? '',
    environment: env === 'unknown' ? '' : env,
    commit: {
      hash: optStr(commit.hash, `${path}.git.commit.hash`) ?? '',
      message: optStr(commit.message, `${path}.git.commit.message`) ?? '',
      author: optStr(commit.author, `${path}.git.commit.author`) ?? '',
    },
    ci,
    tags: [...new Set(tags)],
    extra,
  };
}

// ---- streaming API items -----------------------------------------------------------------------------------

/**
 * One item of `POST /runs/{runId}/results` (`{results: [...]}`): one attempt of one test in Playwright's per-test
 * shape (file, titlePath, projectName, status, duration, retry, errors, steps, attachments, annotations, tags).
 * Items of the same test (retries) share `key` and merge into one test with several attempts (`mergeItem`).
 */
export function normalizeResultItem(item: Json, p: string): { key: string; test: NormTest } {
  const o = obj(item, p);
  const file = name(str(o.file, `${p}.file`), `${p}.file`);
  const titlePath = titlePathOf(
    arr(o.titlePath, `${p}.titlePath`, false).map((t, j) => str(t, `${p}.titlePath[${j}]`)),
    `${p}.titlePath`,
  );
  if (titlePath.length === 0) throw new ReportError(`${p}.titlePath`, 'must name at least the test title');
  const projectName = name(str(o.projectName, `${p}.projectName`, ''), `${p}.projectName`);
  const a = attempt(o, p, 0);
  if (o.retry === undefined) a.retry = 0;
  const shard = o.shard === undefined || o.shard === null ? undefined : num(o.shard, `${p}.shard`);
  if (shard !== undefined && (!Number.isInteger(shard) || shard < 1)) throw new ReportError(`${p}.shard`, 'must be an integer ≥ 1');
  return {
    key: JSON.stringify([file, titlePath, projectName]),
    test: {
      file,
      titlePath,
      projectName,
      expectedStatus: status(o.expectedStatus, `${p}.expectedStatus`, 'passed'),
      annotations: annotations(o.annotations, `${p}.annotations`),
      tags: tagList(o.tags, `${p}.tags`),
      location: location(o.location, `${p}.location`),
      attempts: [a],
      ...(shard === undefined ? {} : { shard }),
    },
  };
}

/** Adds an item to the tests of a batch (the first item of a test gives its fields; later ones add attempts). */
export function mergeItem(byKey: Map<string, NormTest>, item: { key: string; test: NormTest }): void {
  const seen = byKey.get(item.key);
  if (seen) seen.attempts.push(...item.test.attempts);
  else byKey.set(item.key, item.test);
}

// ---- Playwright JSON reporter ------------------------------------------------------------------------------

/** Where a spec sits: the title path of its suites (files excluded) and its file. */
export interface SuiteContext {
  titles: string[];
  file: string;
}

/**
 * The suite context of a suite given its parent's (undefined for a top-level suite, which is the file itself:
 * its title is the file path, not part of the title path).
 */
export function suiteContext(parent: SuiteContext | undefined, title: string, file: string | undefined, path: string): SuiteContext {
  name(title, `${path}.title`);
  if (file !== undefined) name(file, `${path}.file`);
  if (!parent) return { titles: [], file: file ?? title };
  return { titles: title ? [...parent.titles, title] : parent.titles, file: file ?? parent.file };
}

/** One spec of a Playwright report (`{title, file, line, column, tags, tests: [...]}`): one test per project. */
export function normalizeSpec(spec: Json, sp: string, suite: SuiteContext): NormTest[] {
  const so = obj(spec, sp);
  const specTitle = name(str(so.title, `${sp}.title`), `${sp}.title`);
  const specFile = name(optStr(so.file, `${sp}.file`) ?? suite.file, `${sp}.file`);
  const specTags = tagList(so.tags, `${sp}.tags`);
  const titlePath = titlePathOf([...suite.titles, specTitle], `${sp}.title`);
  const loc =
    so.line !== undefined ? { file: specFile, line: num(so.line, `${sp}.line`, 0), column: num(so.column, `${sp}.column`, 0) } : undefined;
  return arr(so.tests, `${sp}.tests`).map((t, j) => {
    const tp = `${sp}.tests[${j}]`;
    const to = obj(t, tp);
    return {
      file: specFile,
      titlePath,
      projectName: name(str(to.projectName, `${tp}.projectName`, ''), `${tp}.projectName`),
      expectedStatus: status(to.expectedStatus, `${tp}.expectedStatus`, 'passed'),
      annotations: annotations(to.annotations, `${tp}.annotations`),
      tags: [...new Set([...specTags, ...tagList(to.tags, `${tp}.tags`)])],
      location: loc,
      attempts: arr(to.results, `${tp}.results`).map((r, k) => attempt(r, `${tp}.results[${k}]`, k)),
    };
  });
}

/** The parts of a Playwright report beside its suites: `stats` (start, duration), `errors`, `coverage`, `metadata`. */
export function normalizeTrailer(parts: {
  metadata?: Json;
  stats?: Json;
  errors: { value: Json; path: string }[];
  coverage?: Json;
}): ReportTrailer {
  const stats = parts.stats === undefined || parts.stats === null ? {} : obj(parts.stats, 'body.stats');
  return {
    metadata: normalizeMetadata(parts.metadata),
    startTime: date(stats.startTime, 'body.stats.startTime'),
    durationMs: stats.duration === undefined ? undefined : Math.round(num(stats.duration, 'body.stats.duration')),
    errors: parts.errors.map((e) => error(e.value, e.path)),
    coverage: isObj(parts.coverage) ? parts.coverage : undefined,
  };
}

// ---- JUnit XML ----------------------------------------------------------------------------------------------

const TIMEOUT_MESSAGE = /timed? ?out|timeout of \d+ ?ms exceeded/i;

/**
 * JUnit XML as `fast-xml-parser` reads it (attributes prefixed `@_`). One testcase = one test with one
 * attempt: JUnit carries no retries, so flaky tests cannot be told apart (they read as passed).
 */
export function normalizeJUnit(doc: Json): NormTest[] {
  const root = obj(doc, 'body');
  const suitesEl = root.testsuites ?? (root.testsuite !== undefined ? { testsuite: root.testsuite } : undefined);
  if (suitesEl === undefined) throw new ReportError('body', 'must have a <testsuites> or <testsuite> root element');
  const suites = asList(isObj(suitesEl) ? suitesEl.testsuite : undefined);
  const tests: NormTest[] = [];
  suites.forEach((suite, i) => {
    const sp = `body.testsuites.testsuite[${i}]`;
    const so = isObj(suite) ? suite : {};
    const suiteName = attr(so, 'name') ?? '';
    asList(so.testcase).forEach((tc, j) => {
      const tp = `${sp}.testcase[${j}]`;
      const t = obj(tc, tp);
      const testName = attr(t, 'name');
      if (!testName) throw new ReportError(`${tp}.name`, 'is required');
      const file = name(attr(t, 'file') ?? attr(so, 'file') ?? attr(t, 'classname') ?? suiteName, `${tp}.file`);
      const time = attr(t, 'time');
      const seconds = time === undefined ? 0 : Number(time);
      if (!Number.isFinite(seconds) || seconds < 0) throw new ReportError(`${tp}.time`, 'must be a non-negative number of seconds');
      const failure = first(t.failure) ?? first(t.error);
      const skipped = t.skipped !== undefined;
      let st: AttemptStatusName = 'passed';
      const errors: TestErrorJson[] = [];
      if (failure !== undefined) {
        const message = (isObj(failure) ? (attr(failure, 'message') ?? '') : '') || textOf(failure).split('\n')[0] || 'failed';
        st = TIMEOUT_MESSAGE.test(message) ? 'timedOut' : 'failed';
        errors.push({ message: cap(stripAnsi(message)), stack: cap(stripAnsi(textOf(failure))) || undefined });
      } else if (skipped) st = 'skipped';
      const props = isObj(t.properties) ? asList(t.properties.property) : [];
      const anns = props.filter(isObj).map((p) => ({ type: attr(p, 'name') ?? '', description: attr(p, 'value') ?? textOf(p) }));
      tests.push({
        file,
        titlePath: titlePathOf(testName.split(' › ').filter(Boolean), `${tp}.name`),
        projectName: '',
        expectedStatus: 'passed',
        annotations: anns.filter((a) => a.type !== ''),
        tags: [],
        attempts: [
          {
            retry: 0,
            status: st,
            durationMs: Math.round(seconds * 1000),
            errors,
            steps: [],
            stdout: textOf(t['system-out']) ? [cap(textOf(t['system-out']))] : [],
            stderr: textOf(t['system-err']) ? [cap(textOf(t['system-err']))] : [],
            attachments: [],
          },
        ],
      });
    });
  });
  return tests;
}

function asList(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}
function first(v: unknown): unknown {
  return asList(v)[0];
}
function attr(o: Record<string, unknown>, name: string): string | undefined {
  const v = o[`@_${name}`];
  return v === undefined || v === null ? undefined : String(v);
}
function textOf(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(textOf).join('\n');
  if (isObj(v)) return textOf(v['#text']);
  return '';
}
