/**
 * JSON reports read as a stream, so memory stays bounded whatever the report's size: only the value being
 * assembled — one spec of a Playwright report, one item of a result batch — is held, and dropped once read. Each
 * spec or item is normalized as soon as it is complete and handed on (a Playwright report's tests after each input
 * chunk, a result batch's CHUNK_SIZE at a time, as its retries merge), which the caller writes inside its transaction
 * (an error later rolls them back).
 *
 * Two readers walk the same skeleton (the root is an object; `suites` and `specs` are arrays of objects; suites
 * nest at most maxSuiteDepth deep; nothing nests beyond maxJsonDepth) and hand over the same values:
 * - the scanner (`scan`) walks the skeleton byte by byte and cuts out every other value whole, which `JSON.parse`
 *   reads (a value over CAPTURE_BYTES is read by the token parser instead, piece by piece): a 10,000-test report
 *   in a fifth of the time the token parser takes;
 * - the reference reader (`parse`, @streamparser/json) reads every token through a guard that refuses a malformed
 *   report at the token that breaks it, with its path, before anything large is built.
 * A report is read by the scanner; when the scanner finds a problem, the reference reader reads the report again
 * and names the problem as it always has (with a no-op sink when tests were handed over already: they are rolled
 * back with the transaction the error ends).
 */
import { isUtf8 } from 'node:buffer';
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

/** The containers of the skeleton: the scanner walks them token by token (every other value is cut out whole). */
const SKELETON: ReadonlySet<Role> = new Set(['root', 'suites', 'suite', 'specs', 'errors', 'results']);

/** The skeleton rules of one report format: the role of a child, which root keys exist, which values are read. */
interface Shape {
  childRole(parent: Frame, key: Key): Role;
  /** Root keys refused as unknown (undefined: any). */
  rootKeys?: readonly string[];
  /** Values the reader hands on (those of `paths`); every other value outside the skeleton is only checked. */
  paths: string[];
  /** `paths` as the scanner tells them: whether the value at `key` of `parent` is one of them. */
  emits(parent: Frame, key: Key): boolean;
}

function suitePaths(): string[] {
  const paths: string[] = ['$.metadata', '$.stats', '$.coverage', '$.errors.*'];
  for (let d = 1, prefix = '$.suites.*'; d <= MAX_SUITE_DEPTH; d++, prefix += '.suites.*') {
    paths.push(`${prefix}.title`, `${prefix}.file`, `${prefix}.specs.*`);
  }
  return paths;
}

const PLAYWRIGHT: Shape = {
  childRole(parent, key) {
    if (parent.role === 'root') return key === 'suites' ? 'suites' : key === 'errors' ? 'errors' : 'free';
    if (parent.role === 'suites') return 'suite';
    if (parent.role === 'suite') return key === 'suites' ? 'suites' : key === 'specs' ? 'specs' : 'free';
    if (parent.role === 'specs') return 'spec';
    return 'free';
  },
  paths: suitePaths(),
  emits(parent, key) {
    switch (parent.role) {
      case 'root':
        return key === 'metadata' || key === 'stats' || key === 'coverage';
      case 'suite':
        return key === 'title' || key === 'file';
      case 'specs':
      case 'errors':
        return true;
      default:
        return false;
    }
  },
};

const RESULT_BATCH: Shape = {
  childRole(parent, key) {
    if (parent.role === 'root') return key === 'results' ? 'results' : 'free';
    if (parent.role === 'results') return 'item';
    return 'free';
  },
  rootKeys: ['results'],
  paths: ['$.results.*'],
  emits: (parent) => parent.role === 'results',
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

/** Reads `body` and hands the values at the shape's paths to `drain` after each input chunk (awaited: the next chunk is read only then). */
type Reader = (body: Chunks, shape: Shape, drain: (values: Emitted[]) => Promise<void>) => Promise<{ rootKeys: ReadonlySet<string> }>;

/** The reference reader: `body` through the tokenizer, the guard and a token parser emitting the values at the shape's paths. */
const parse: Reader = async (body, shape, drain) => {
  const guard = new Guard(shape);
  const parser = new TokenParser({ paths: shape.paths, keepStack: false });
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
};

/** Values up to this size are cut out and read by `JSON.parse`; larger ones by the token parser, piece by piece. */
const CAPTURE_BYTES = 1024 * 1024;

/** One value outside the skeleton, being cut out. */
interface Capture {
  kind: 'object' | 'array' | 'string' | 'scalar';
  /** A key of the skeleton, a value handed on (at `keys`), or a value only checked. */
  then: 'key' | 'emit' | 'check';
  keys: Key[];
  /** Containers open inside the value. */
  depth: number;
  inString: boolean;
  escaped: boolean;
  pieces: Buffer[];
  size: number;
  /** The token parser reading a value over CAPTURE_BYTES. */
  large?: { tokenizer: Tokenizer; done: () => unknown };
}

/** What the skeleton expects next (whitespace aside). */
const enum Next {
  Value,
  FirstValue,
  Key,
  FirstKey,
  Colon,
  Comma,
  End,
}

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The scanner gives up; the reference reader names the problem. */
class ScanError extends ReportError {
  constructor(message: string) {
    super('body', `malformed JSON (${message})`);
  }
}

/** The token parser reading one value (any JSON value) fed piece by piece; `done()` ends it and answers the value. */
function largeValue(): { tokenizer: Tokenizer; done: () => unknown } {
  const tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024, numberBufferSize: 64 });
  const parser = new TokenParser({ paths: ['$'], keepStack: false });
  let value: unknown;
  let read = false;
  parser.onValue = ({ value: v }) => {
    value = v;
    read = true;
  };
  parser.onEnd = () => undefined;
  tokenizer.onToken = (t) => parser.write(t);
  return {
    tokenizer,
    done: () => {
      tokenizer.end();
      if (!read) throw new ScanError('unexpected end of a value');
      return value;
    },
  };
}

/**
 * The scanner: walks the skeleton byte by byte as the guard does (same roles, same limits) and cuts out every
 * other value whole — a spec, an item, a suite's title, a key, a value only checked — for `JSON.parse`. Any problem
 * throws a ScanError (the reference reader then names it).
 */
class Scanner {
  private readonly frames: Frame[] = [];
  private next = Next.Value;
  private cap: Capture | undefined;
  private started = false;
  emitted: Emitted[] = [];
  readonly rootKeys = new Set<string>();

  constructor(private readonly shape: Shape) {}

  write(buf: Buffer): void {
    if (!this.started && buf.length > 0) {
      this.started = true;
      // A byte-order mark: left to the reference reader (which skips it).
      if (buf[0] === 0xef) throw new ScanError('byte-order mark');
    }
    let i = 0;
    while (i < buf.length) {
      if (this.cap) {
        i = this.capture(buf, i);
        continue;
      }
      const b = buf[i]!;
      if (isSpace(b)) {
        i++;
        continue;
      }
      i = this.skeleton(b, i);
    }
  }

  end(): void {
    if (this.cap?.kind === 'scalar') this.finish();
    if (this.cap || this.next !== Next.End) throw new ScanError('unexpected end');
  }

  private top(): Frame | undefined {
    return this.frames[this.frames.length - 1];
  }

  /** One byte of the skeleton (not whitespace); answers the index to go on from. */
  private skeleton(b: number, i: number): number {
    const top = this.top();
    switch (this.next) {
      case Next.FirstValue:
        return b === 0x5d ? this.close(b, i) : this.value(b, i);
      case Next.Value:
        return this.value(b, i);
      case Next.FirstKey:
        return b === 0x7d ? this.close(b, i) : this.key(b, i);
      case Next.Key:
        return this.key(b, i);
      case Next.Colon:
        if (b !== 0x3a) throw new ScanError('a colon expected');
        this.next = Next.Value;
        return i + 1;
      case Next.Comma:
        if (b !== 0x2c) return this.close(b, i);
        if (top!.kind === 'array') {
          top!.next = (top!.next as number) + 1;
          this.next = Next.Value;
        } else this.next = Next.Key;
        return i + 1;
      default:
        throw new ScanError('text after the report');
    }
  }

  private key(b: number, i: number): number {
    if (b !== 0x22) throw new ScanError('a key expected');
    this.startCapture('string', 'key', []);
    return i;
  }

  private close(b: number, i: number): number {
    const top = this.top()!;
    if (b !== (top.kind === 'object' ? 0x7d : 0x5d)) throw new ScanError(`unexpected ${String.fromCharCode(b)}`);
    this.frames.pop();
    this.next = this.frames.length === 0 ? Next.End : Next.Comma;
    return i + 1;
  }

  /** A value starts at byte `b`: a container of the skeleton (entered), or a value to cut out. */
  private value(b: number, i: number): number {
    const parent = this.top();
    const key = parent?.next;
    const role: Role = parent ? this.shape.childRole(parent, key!) : 'root';
    const kind = b === 0x7b ? 'object' : b === 0x5b ? 'array' : b === 0x22 ? 'string' : 'scalar';
    const must = MUST[role];
    if (must && must !== kind) throw new ScanError(`${role} must be an ${must}`);
    const suiteDepth = (parent?.suiteDepth ?? 0) + (role === 'suite' ? 1 : 0);
    if (role === 'suite' && suiteDepth > MAX_SUITE_DEPTH) throw new ScanError('suites nested too deep');
    if (SKELETON.has(role)) {
      if (this.frames.length >= MAX_JSON_DEPTH) throw new ScanError('nested too deep');
      const container = kind as 'object' | 'array';
      this.frames.push({
        kind: container,
        role,
        key,
        suiteDepth,
        next: container === 'array' ? 0 : undefined,
        expectKey: container === 'object',
      });
      this.next = container === 'object' ? Next.FirstKey : Next.FirstValue;
      return i + 1;
    }
    const emit = parent !== undefined && this.shape.emits(parent, key!);
    this.startCapture(kind, emit ? 'emit' : 'check', emit ? [...this.frames.slice(1).map((f) => f.key!), key!] : []);
    return i;
  }

  private startCapture(kind: Capture['kind'], then: Capture['then'], keys: Key[]): void {
    this.cap = { kind, then, keys, depth: 0, inString: false, escaped: false, pieces: [], size: 0 };
  }

  /** Cuts out the captured value from `buf[i..]`; answers the index after it (or the end of `buf`). */
  private capture(buf: Buffer, i: number): number {
    const c = this.cap!;
    const n = buf.length;
    let j = i;
    let complete = false;
    if (c.kind === 'scalar') {
      while (j < n) {
        const b = buf[j]!;
        if (b === 0x2c || b === 0x5d || b === 0x7d || isSpace(b)) {
          complete = true;
          break;
        }
        j++;
      }
    } else {
      const limit = MAX_JSON_DEPTH - this.frames.length;
      let { depth, inString, escaped } = c;
      for (; j < n; j++) {
        if (inString) {
          if (escaped) {
            escaped = false;
            continue;
          }
          // Most of a report is inside strings: jump to the next quote; it closes the string unless an odd run of
          // backslashes precedes it (a run reaching back to j started after an unescaped character: see `escaped`).
          const quote = buf.indexOf(0x22, j);
          const end = quote === -1 ? n : quote;
          let run = 0;
          while (end - run - 1 >= j && buf[end - run - 1] === 0x5c) run++;
          if (quote === -1) {
            escaped = run % 2 === 1;
            j = n;
            break;
          }
          j = quote;
          if (run % 2 === 1) continue;
          inString = false;
          if (depth === 0) {
            j++;
            complete = true;
            break;
          }
          continue;
        }
        const b = buf[j]!;
        if (b === 0x22) inString = true;
        else if (b === 0x7b || b === 0x5b) {
          if (depth >= limit) throw new ScanError('nested too deep');
          depth++;
        } else if (b === 0x7d || b === 0x5d) {
          depth--;
          if (depth <= 0) {
            j++;
            complete = true;
            break;
          }
        }
      }
      Object.assign(c, { depth, inString, escaped });
    }
    if (j > i) this.append(c, buf.subarray(i, j));
    if (complete) this.finish();
    return j;
  }

  private append(c: Capture, piece: Buffer): void {
    if (!c.large && c.size + piece.length > CAPTURE_BYTES) {
      c.large = largeValue();
      for (const p of c.pieces) this.feed(c, p);
      c.pieces = [];
    }
    c.size += piece.length;
    if (c.large) this.feed(c, piece);
    else c.pieces.push(piece);
  }

  private feed(c: Capture, piece: Buffer): void {
    try {
      c.large!.tokenizer.write(piece);
    } catch (err) {
      throw new ScanError(err instanceof Error ? err.message : String(err));
    }
  }

  /** The captured value is complete: read it, and hand it on as a key, an emitted value, or nothing. */
  private finish(): void {
    const c = this.cap!;
    this.cap = undefined;
    let value: unknown;
    try {
      if (c.large) value = c.large.done();
      else {
        const bytes = c.pieces.length === 1 ? c.pieces[0]! : Buffer.concat(c.pieces, c.size);
        if (!isUtf8(bytes)) throw new ScanError('not UTF-8');
        value = JSON.parse(bytes.toString('utf8'));
      }
    } catch (err) {
      if (err instanceof ScanError) throw err;
      throw new ScanError(err instanceof Error ? err.message : String(err));
    }
    if (c.then === 'key') {
      const top = this.top()!;
      top.next = value as string;
      if (top.role === 'root') {
        this.rootKeys.add(value as string);
        if (this.shape.rootKeys && !this.shape.rootKeys.includes(value as string)) throw new ScanError('unknown property');
      }
      this.next = Next.Colon;
      return;
    }
    if (c.then === 'emit') this.emitted.push({ keys: c.keys, value });
    this.next = Next.Comma;
  }
}

/** The scanner's reader. */
const scan: Reader = async (body, shape, drain) => {
  const scanner = new Scanner(shape);
  for await (const chunk of body) {
    scanner.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (scanner.emitted.length > 0) {
      const batch = scanner.emitted;
      scanner.emitted = [];
      await drain(batch);
    }
  }
  scanner.end();
  if (scanner.emitted.length > 0) await drain(scanner.emitted);
  return scanner;
};

/** A body the readers can read more than once: chunks in memory, or a function opening it again. */
export type Source = Chunks | (() => Chunks);

/**
 * Reads `body` with the scanner, handing tests to `sink`; on a problem the scanner found, the reference reader reads
 * the body again and names it: with the real sink when no test was handed over yet (then its answer is the answer),
 * else with a no-op sink (its error is thrown; if it finds none, the scanner's is). A body that can be read only once
 * (a stream) is read by the reference reader alone. A failure of the sink itself is thrown as it is.
 */
async function readWith<T>(body: Source, sink: TestSink, read: (chunks: Chunks, sink: TestSink, reader: Reader) => Promise<T>): Promise<T> {
  const open = typeof body === 'function' ? body : Array.isArray(body) ? () => body : undefined;
  if (!open) return read(body as Chunks, sink, parse);
  let handedOver = false;
  let sinkFailed = false;
  const watched: TestSink = async (tests) => {
    handedOver = true;
    try {
      await sink(tests);
    } catch (err) {
      sinkFailed = true;
      throw err;
    }
  };
  try {
    return await read(open(), watched, scan);
  } catch (err) {
    if (sinkFailed || !(err instanceof ReportError)) throw err;
    if (!handedOver) return read(open(), sink, parse);
    await read(open(), async () => undefined, parse);
    throw err;
  }
}

/**
 * Collects normalized tests and hands them to the sink after each input chunk, at most CHUNK_SIZE at a time: the sink
 * encodes them at once, so a test's parsed values die young (see TestWriter).
 */
class Chunker {
  private tests: NormTest[] = [];
  constructor(private readonly sink: TestSink) {}
  add(tests: NormTest[]) {
    this.tests.push(...tests);
  }
  async flush() {
    while (this.tests.length > 0) await this.sink(this.tests.splice(0, CHUNK_SIZE));
  }
}

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
export function readPlaywrightReport(body: Source) {
  return (sink: TestSink): Promise<ReportTrailer> => readWith(body, sink, readPlaywrightOnce);
}

async function readPlaywrightOnce(body: Chunks, sink: TestSink, reader: Reader): Promise<ReportTrailer> {
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

  const guard = await reader(body, PLAYWRIGHT, async (values) => {
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
  await chunker.flush();
  return normalizeTrailer(trailer);
}

/**
 * `POST /runs/{runId}/results` body (`{results: [...]}`), read as a stream. Items of one test (its retries) merge
 * within a chunk; across chunks the store merges them (attempts are keyed by test and retry).
 */
export function readResultBatch(body: Source) {
  return (sink: TestSink): Promise<{ accepted: number; tests: number }> => readWith(body, sink, readResultBatchOnce);
}

async function readResultBatchOnce(body: Chunks, sink: TestSink, reader: Reader): Promise<{ accepted: number; tests: number }> {
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
  const guard = await reader(body, RESULT_BATCH, async (values) => {
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
}

/** A one-shot report whose tests are already in memory (JUnit XML), as a reader. */
export function readTests(tests: NormTest[], trailer: ReportTrailer) {
  return async (sink: TestSink): Promise<ReportTrailer> => {
    for (let i = 0; i < tests.length; i += CHUNK_SIZE) await sink(tests.slice(i, i + CHUNK_SIZE));
    return trailer;
  };
}
