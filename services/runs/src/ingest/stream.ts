/**
 * JSON reports read as a stream (@streamparser/json), so memory stays bounded whatever the report's size: the
 * parser keeps only the value being assembled — one spec of a Playwright report, one item of a result batch —
 * and drops everything else once read. Each spec or item is normalized as soon as it is complete and handed on
 * in chunks of CHUNK_SIZE tests, which the caller writes inside its transaction (an error later rolls them back).
 *
 * A guard watches the tokens for the report's skeleton (the root is an object; `suites` and `specs` are arrays of
 * objects; suites nest at most maxSuiteDepth deep; nothing nests beyond maxJsonDepth), so a malformed report is
 * refused at the token that breaks it, with its path, before anything large is built.
 */
import { TokenParser, Tokenizer, TokenType } from '@streamparser/json';
import { REPORT_SHAPE_LIMITS } from '@assay/contracts/runs/values';
import { CHUNK_SIZE } from '../store/ingest';
import type { Chunks } from './spool';
import {
  mergeItem,
  normalizeResultItem,
  normalizeSpec,
  normalizeTrailer,
  ReportError,
  suiteContext,
  type NormTest,
  type ReportTrailer,
  type SuiteContext,
  type TestSink,
} from './normalize';

const { maxSuiteDepth: MAX_SUITE_DEPTH, maxJsonDepth: MAX_JSON_DEPTH } = REPORT_SHAPE_LIMITS;

type Key = string | number;

/** `body.suites[0].specs[3]` from the keys of a value. */
export function pathOf(keys: readonly Key[]): string {
  return keys.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : `${p}.${k}`), 'body');
}

/** What a position of the skeleton must hold; `free` is anything. */
type Role = 'root' | 'suites' | 'suite' | 'specs' | 'spec' | 'errors' | 'results' | 'item' | 'free';
const MUST: Partial<Record<Role, 'object' | 'array'>> = {
  root: 'object',
  suites: 'array',
  suite: 'object',
  specs: 'array',
  spec: 'object',
  errors: 'array',
  results: 'array',
  item: 'object',
};

interface Frame {
  kind: 'object' | 'array';
  role: Role;
  /** This container's key in its parent (undefined for the root). */
  key: Key | undefined;
  /** Suites from the root down to this container. */
  suiteDepth: number;
  /** Object: the key whose value comes next; array: the index of the next element. */
  next: Key | undefined;
  expectKey: boolean;
}

/** The skeleton rules of one report format: the role of a child, and which root keys exist. */
interface Shape {
  childRole(parent: Frame, key: Key): Role;
  /** Root keys refused as unknown (undefined: any). */
  rootKeys?: readonly string[];
}

const PLAYWRIGHT: Shape = {
  childRole(parent, key) {
    if (parent.role === 'root') return key === 'suites' ? 'suites' : key === 'errors' ? 'errors' : 'free';
    if (parent.role === 'suites') return 'suite';
    if (parent.role === 'suite') return key === 'suites' ? 'suites' : key === 'specs' ? 'specs' : 'free';
    if (parent.role === 'specs') return 'spec';
    return 'free';
  },
};

const RESULT_BATCH: Shape = {
  childRole(parent, key) {
    if (parent.role === 'root') return key === 'results' ? 'results' : 'free';
    if (parent.role === 'results') return 'item';
    return 'free';
  },
  rootKeys: ['results'],
};

/** Follows the tokens (after the parser accepted them) and refuses a report whose skeleton is wrong. */
class Guard {
  private frames: Frame[] = [];
  readonly rootKeys = new Set<string>();

  constructor(private readonly shape: Shape) {}

  private keys(extra?: Key): Key[] {
    const keys = this.frames.slice(1).map((f) => f.key!);
    return extra === undefined ? keys : [...keys, extra];
  }

  private fail(key: Key | undefined, message: string): never {
    throw new ReportError(pathOf(this.keys(key)), message);
  }

  /** A value starts: a container (pushed) or a scalar. */
  private value(kind: 'object' | 'array' | 'scalar'): void {
    const parent = this.frames[this.frames.length - 1];
    const key = parent?.next;
    const role: Role = parent ? this.shape.childRole(parent, key!) : 'root';
    const must = MUST[role];
    if (must && must !== kind) {
      if (!parent) throw new ReportError('body', `must be an ${must}`);
      this.fail(key, `must be an ${must}`);
    }
    const suiteDepth = (parent?.suiteDepth ?? 0) + (role === 'suite' ? 1 : 0);
    if (role === 'suite' && suiteDepth > MAX_SUITE_DEPTH) this.fail(key, `suites are nested more than ${MAX_SUITE_DEPTH} deep`);
    if (kind === 'scalar') return;
    if (this.frames.length >= MAX_JSON_DEPTH) this.fail(key, `nested more than ${MAX_JSON_DEPTH} levels deep`);
    this.frames.push({ kind, role, key, suiteDepth, next: kind === 'array' ? 0 : undefined, expectKey: kind === 'object' });
  }

  token(token: TokenType, value: unknown): void {
    const top = this.frames[this.frames.length - 1];
    switch (token) {
      case TokenType.LEFT_BRACE:
        return this.value('object');
      case TokenType.LEFT_BRACKET:
        return this.value('array');
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        this.frames.pop();
        return;
      case TokenType.COLON:
        return;
      case TokenType.COMMA:
        if (top?.kind === 'array') top.next = (top.next as number) + 1;
        else if (top) top.expectKey = true;
        return;
      case TokenType.STRING:
        if (top?.kind === 'object' && top.expectKey) {
          top.expectKey = false;
          top.next = value as string;
          if (top.role === 'root') {
            this.rootKeys.add(value as string);
            if (this.shape.rootKeys && !this.shape.rootKeys.includes(value as string))
              this.fail(value as string, `unknown property "${value as string}"`);
          }
          return;
        }
        return this.value('scalar');
      default:
        return this.value('scalar');
    }
  }
}

/** One value the parser completed at a selected path. */
interface Emitted {
  keys: Key[];
  value: unknown;
}

/**
 * Feeds `body` through the tokenizer, the guard and a token parser emitting the values at `paths`; after each
 * input chunk, `drain` handles what was emitted (awaited: the next chunk is read only then).
 */
async function parse(body: Chunks, shape: Shape, paths: string[], drain: (values: Emitted[]) => Promise<void>) {
  const guard = new Guard(shape);
  const parser = new TokenParser({ paths, keepStack: false });
  // Buffered strings and numbers: a third faster on reports (long messages, stacks, outputs).
  const tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024, numberBufferSize: 64 });
  let emitted: Emitted[] = [];
  let empty = true;
  parser.onValue = ({ value, key, stack }) => {
    const keys = stack.slice(1).map((s) => s.key as Key);
    if (key !== undefined) keys.push(key as Key);
    emitted.push({ keys, value });
  };
  // The root value completing ends the parser; anything after it is refused by the tokenizer.
  parser.onEnd = () => undefined;
  tokenizer.onToken = ({ token, value }) => {
    empty = false;
    parser.write({ token, value });
    guard.token(token, value);
  };
  const malformed = (err: unknown): never => {
    if (err instanceof ReportError) throw err;
    throw new ReportError('body', `malformed JSON (${err instanceof Error ? err.message : String(err)})`);
  };
  for await (const chunk of body) {
    try {
      tokenizer.write(chunk);
    } catch (err) {
      malformed(err);
    }
    if (emitted.length > 0) {
      const batch = emitted;
      emitted = [];
      await drain(batch);
    }
  }
  try {
    tokenizer.end();
  } catch (err) {
    malformed(err);
  }
  if (empty) throw new ReportError('body', 'empty JSON body');
  if (!parser.isEnded) throw new ReportError('body', 'malformed JSON (unexpected end)');
  if (emitted.length > 0) await drain(emitted);
  return guard;
}

/** Collects normalized tests and hands them to the sink CHUNK_SIZE at a time. */
class Chunker {
  private tests: NormTest[] = [];
  count = 0;
  constructor(private readonly sink: TestSink) {}
  add(tests: NormTest[]) {
    this.tests.push(...tests);
    this.count += tests.length;
  }
  async flush(all = false) {
    while (this.tests.length >= CHUNK_SIZE || (all && this.tests.length > 0)) await this.sink(this.tests.splice(0, CHUNK_SIZE));
  }
}

function suitePaths(): string[] {
  const paths: string[] = ['$.metadata', '$.stats', '$.coverage', '$.errors.*'];
  for (let d = 1, prefix = '$.suites.*'; d <= MAX_SUITE_DEPTH; d++, prefix += '.suites.*') {
    paths.push(`${prefix}.title`, `${prefix}.file`, `${prefix}.specs.*`);
  }
  return paths;
}
const PLAYWRIGHT_PATHS = suitePaths();

/** Title and file of one suite, and whether anything inside it was read already (then they may not change). */
interface SuiteSeen {
  title: string;
  file?: string;
  context?: SuiteContext;
}

/**
 * A Playwright JSON reporter file (`{config, suites, errors, stats}`, optionally `metadata`), read as a stream.
 * A suite's `title` and `file` must come before its specs and child suites, as Playwright writes them.
 */
export function readPlaywrightReport(body: Chunks) {
  return async (sink: TestSink): Promise<ReportTrailer> => {
    const chunker = new Chunker(sink);
    const suites = new Map<string, SuiteSeen>();
    const trailer: { metadata?: unknown; stats?: unknown; coverage?: unknown; errors: { value: unknown; path: string }[] } = { errors: [] };

    /** The context of the suite at `keys` (…, 'suites', i), fixing its title and file from now on. */
    const contextOf = (keys: Key[]): SuiteContext => {
      const id = keys.join('.');
      const seen = suites.get(id) ?? { title: '' };
      if (!seen.context) {
        const parent = keys.length > 2 ? contextOf(keys.slice(0, -2)) : undefined;
        seen.context = suiteContext(parent, seen.title, seen.file, pathOf(keys));
        suites.set(id, seen);
      }
      return seen.context;
    };

    const guard = await parse(body, PLAYWRIGHT, PLAYWRIGHT_PATHS, async (values) => {
      for (const { keys, value } of values) {
        const last = keys[keys.length - 1];
        if (keys[0] !== 'suites') {
          if (keys[0] === 'errors') trailer.errors.push({ value, path: pathOf(keys) });
          else trailer[keys[0] as 'metadata' | 'stats' | 'coverage'] = value;
        } else if (typeof last === 'number') {
          // …, 'specs', j: a spec of the suite at keys[0 .. -2).
          chunker.add(normalizeSpec(value, pathOf(keys), contextOf(keys.slice(0, -2))));
        } else {
          // …, 'suites', i, 'title' | 'file'.
          const suiteKeys = keys.slice(0, -1);
          const id = suiteKeys.join('.');
          const seen = suites.get(id) ?? { title: '' };
          if (seen.context) throw new ReportError(pathOf(keys), 'must come before the suite’s specs and suites (as Playwright writes it)');
          if (typeof value !== 'string') throw new ReportError(pathOf(keys), 'must be a string');
          if (last === 'title') seen.title = value;
          else seen.file = value;
          suites.set(id, seen);
          // The parent's title and file are now fixed.
          if (suiteKeys.length > 2) contextOf(suiteKeys.slice(0, -2));
        }
      }
      await chunker.flush();
    });
    if (!guard.rootKeys.has('suites')) throw new ReportError('body.suites', 'is required (a Playwright JSON report)');
    await chunker.flush(true);
    return normalizeTrailer(trailer);
  };
}

/**
 * `POST /runs/{runId}/results` body (`{results: [...]}`), read as a stream. Items of one test (its retries) merge
 * within a chunk; across chunks the store merges them (attempts are keyed by test and retry).
 */
export function readResultBatch(body: Chunks) {
  return async (sink: TestSink): Promise<{ accepted: number; tests: number }> => {
    let byKey = new Map<string, NormTest>();
    const tests = new Set<string>();
    let accepted = 0;
    const flush = async (all: boolean) => {
      if (byKey.size >= CHUNK_SIZE || (all && byKey.size > 0)) {
        const chunk = [...byKey.values()];
        byKey = new Map();
        await sink(chunk);
      }
    };
    const guard = await parse(body, RESULT_BATCH, ['$.results.*'], async (values) => {
      for (const { keys, value } of values) {
        const item = normalizeResultItem(value, pathOf(keys));
        accepted++;
        tests.add(item.key);
        mergeItem(byKey, item);
      }
      await flush(false);
    });
    if (!guard.rootKeys.has('results')) throw new ReportError('body.results', 'is required');
    await flush(true);
    return { accepted, tests: tests.size };
  };
}

/** A one-shot report whose tests are already in memory (JUnit XML), as a reader. */
export function readTests(tests: NormTest[], trailer: ReportTrailer) {
  return async (sink: TestSink): Promise<ReportTrailer> => {
    for (let i = 0; i < tests.length; i += CHUNK_SIZE) await sink(tests.slice(i, i + CHUNK_SIZE));
    return trailer;
  };
}
