/**
 * Artifacts of test results: the bytes of the attachments a report names (screenshots, videos, traces, files)
 * streamed to object storage, one row each. Three ways in — an upload for one attachment of one attempt
 * (ingestion API), a blob PUT under a compatibility upload (tdpw's SAS flow, claimed by the report that names its
 * URL) — and one way out: `open`, with the headers that make a download safe to serve on the app's origin.
 *
 * Each write streams the body to storage first (limits enforced as bytes pass; nothing is buffered whole), then
 * records the row in one short transaction; an object whose row could not be written is deleted again.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { pipeline, Transform, type Readable } from 'node:stream';
import contentDisposition from 'content-disposition';
import { AppError, notFound, validation } from '@assay/errors';
import { newId } from '@assay/db';
import { idempotentTransaction, jsonAnswers } from '@assay/service-kit';
import { ObjectTooLarge, type ByteRange, type ObjectRead, type ObjectStore } from '@assay/storage';
import type { ArtifactJson } from '@assay/contracts/runs/artifacts';
import type { AttachmentJson, AttemptAttachmentJson } from '@assay/contracts/runs/debug-bundle';
import type { Wiring } from '../wiring';
import type { IngestCall } from '../ingest/call';
import { resultIdOf, testIdOf } from '../domain/identity';
import { findRun } from '../store/test-runs';
import {
  artifactsOfResult,
  claimStagedBlob,
  findArtifact,
  findUpload,
  insertUpload,
  retentionDaysOf,
  runArtifactBytes,
  runFileByPath,
  unclaimedBlobs,
  upsertAttachmentArtifact,
  upsertStagedBlob,
  uploadedAttachmentPaths,
  type ArtifactRow,
} from '../store/artifacts';
import { ArtifactUrls } from './urls';

const DAY_MS = 86_400_000;
/** How long a compatibility upload accepts blobs, and how long its unclaimed blobs are kept after that. */
export const UPLOAD_TTL_MS = 3 * 3_600_000;
const UNCLAIMED_GRACE_MS = DAY_MS;
/** The blob path prefix of compatibility uploads, under the gateway's `/api/storage`. */
export const UPLOADS_SEGMENT = 'uploads';

/** A blob's URL under a compatibility upload: its upload id and path. */
const UPLOAD_URL = /\/api\/storage\/uploads\/([0-9a-f]{24})\/([^?#]+)/;
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'video/webm', 'video/mp4', 'video/ogg']);
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;
const BLOB_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}(\/[A-Za-z0-9_][A-Za-z0-9._-]{0,199}){0,15}$/;

/** No attachment served here may act on the app's origin: every answer is sandboxed; HTML may script, in an opaque origin. */
export const ARTIFACT_CSP = "sandbox; default-src 'none'; frame-ancestors 'none'";
export const HTML_CSP =
  "sandbox allow-scripts allow-popups allow-downloads; default-src 'none'; script-src 'unsafe-inline' blob: data:; " +
  "style-src 'unsafe-inline' data:; img-src data: blob:; media-src data: blob:; font-src data:; worker-src blob:; connect-src data: blob:; " +
  "frame-ancestors 'none'";
/**
 * Every file of an HTML report's folder URL (urls.ts). The same sandbox as HTML_CSP — scripts run, but in an
 * opaque origin, never the app's (no `allow-same-origin`) — plus what Playwright's report loads beside its one
 * inline-scripted index.html: images and videos of its `data/` folder (`'self'`: in a sandboxed document Chromium
 * matches it against the URL's origin, and the report's folder is only reachable with its signature). Nothing
 * else of the origin: no script, style, font or fetch from it, no form posts, no `<base>`.
 */
export const HTML_REPORT_CSP =
  "sandbox allow-scripts allow-popups allow-downloads; default-src 'none'; script-src 'unsafe-inline' blob: data:; " +
  "style-src 'unsafe-inline' data:; img-src 'self' data: blob:; media-src 'self' data: blob:; font-src data:; worker-src blob:; " +
  "connect-src data: blob:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
/**
 * Put in front of an HTML report's own scripts (after its doctype). A sandboxed document without
 * `allow-same-origin` has no Web Storage: reading `localStorage` throws, and Playwright's report reads its
 * settings from it before it renders anything (a blank page). This gives the page an in-memory stand-in, empty
 * at each load and visible to nothing else; a page with real storage (none here) keeps it.
 */
export const REPORT_STORAGE_SHIM = Buffer.from(
  '<script>/* Assay: in-memory Web Storage for a sandboxed report */(function(){["localStorage","sessionStorage"].forEach(function(n){' +
    'try{if(window[n])return}catch(e){}var s=Object.create(null),h=function(k){return Object.prototype.hasOwnProperty.call(s,k)};' +
    'Object.defineProperties(s,{getItem:{value:function(k){k=String(k);return h(k)?s[k]:null}},setItem:{value:function(k,v){s[String(k)]=String(v)}},' +
    'removeItem:{value:function(k){delete s[String(k)]}},clear:{value:function(){Object.keys(s).forEach(function(k){delete s[k]})}},' +
    'key:{value:function(i){var k=Object.keys(s);return i<k.length?k[i]:null}},length:{get:function(){return Object.keys(s).length}}});' +
    'Object.defineProperty(window,n,{value:s,configurable:true,enumerable:true})})})();</script>',
);
/** How far into an HTML file its doctype (and what may precede it: a BOM, blanks, comments) is looked for. */
const DOCTYPE_WINDOW = 1024;
const DOCTYPE = /^(?:\xEF\xBB\xBF)?\s*(?:<!--[\s\S]*?-->\s*)*<!doctype[^>]*>/i;

export function cleanContentType(v: string | undefined): string | undefined {
  const t = (v ?? '').split(';')[0]!.trim().toLowerCase();
  return CONTENT_TYPE.test(t) ? t : undefined;
}

/** The identity of one attachment of one attempt, as an upload names it (the report's own fields). */
export interface AttachmentRef {
  file: string;
  titlePath: string[];
  projectName: string;
  retry: number;
  name: string;
  /** The attachment's path in the report: tells apart attachments sharing a name. */
  path?: string;
}

export interface Download {
  row: ArtifactRow;
  read: ObjectRead;
  headers: Record<string, string>;
  status: 200 | 206;
}

/** A file's path below a report's folder URL, as stored (`html/…`): null when it is not one a blob could have. */
export function reportBlobPath(relative: string): string | null {
  const blobPath = `html/${relative}`;
  return blobPath.length <= 2048 && BLOB_PATH.test(blobPath) && !blobPath.split('/').some((s) => s === '.' || s === '..') ? blobPath : null;
}

/** The HTML with `prologue` inserted after its doctype (at the start without one), streamed. */
export function insertAfterDoctype(body: Readable, prologue: Buffer): Readable {
  const head: Buffer[] = [];
  let headBytes = 0;
  let inserted = false;
  const splice = (t: Transform) => {
    inserted = true;
    const start = Buffer.concat(head);
    // latin1: one character per byte, so the match's length is a byte offset.
    const at = DOCTYPE.exec(start.toString('latin1'))?.[0].length ?? 0;
    t.push(Buffer.concat([start.subarray(0, at), prologue, start.subarray(at)]));
  };
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (inserted) return cb(null, chunk);
      head.push(chunk);
      headBytes += chunk.length;
      if (headBytes >= DOCTYPE_WINDOW) splice(this);
      cb();
    },
    flush(cb) {
      if (!inserted) splice(this);
      cb();
    },
  });
  return pipeline(body, out, () => undefined);
}

export const attachmentKey = (retry: number, name: string, path: string) => `${retry}\n${name}\n${path}`;

const hashSecret = (s: string) => createHash('sha256').update(s).digest();

export class Artifacts {
  readonly urls: ArtifactUrls;

  constructor(
    private readonly w: Wiring,
    readonly store: ObjectStore,
  ) {
    this.urls = new ArtifactUrls(w.config.INTERNAL_AUTH_TOKEN, w.config.PUBLIC_UI_URL, w.config.ARTIFACT_URL_TTL_SECONDS);
  }

  private keyFor(projectId: string, id: string): string {
    return `projects/${projectId}/artifacts/${id}`;
  }

  private async expiryFor(projectId: string): Promise<Date> {
    const days = await retentionDaysOf(this.w.pool, projectId, this.w.config.ARTIFACT_RETENTION_DAYS);
    return new Date(this.w.clock().getTime() + days * DAY_MS);
  }

  /** Streams `body` to storage under a new key; maps the limit to 413 and removes nothing-left-behind cases. */
  private async putObject(key: string, body: Readable, contentType: string, maxBytes: number, what: string) {
    try {
      return await this.store.put(key, body, { contentType, maxBytes });
    } catch (err) {
      if (err instanceof ObjectTooLarge) throw new AppError('PAYLOAD_TOO_LARGE', `${what} is limited to ${maxBytes} bytes`);
      throw err;
    }
  }

  /** Deletes objects whose rows are gone; a failure only leaves garbage, which is logged. */
  private async discard(keys: (string | undefined)[]): Promise<void> {
    const present = keys.filter((k): k is string => !!k);
    if (present.length === 0) return;
    await this.store
      .delete(present)
      .catch((err: unknown) => this.w.logger.warn({ err, keys: present }, 'could not delete replaced artifact objects'));
  }

  /** The ingestion API's upload: the bytes of one attachment of one attempt of a run's result. */
  async uploadAttachment(
    projectId: string,
    runId: string,
    ref: AttachmentRef,
    body: Readable,
    opts: { contentType?: string; contentLength?: number; call?: IngestCall },
  ): Promise<ArtifactJson> {
    const { pool, config } = this.w;
    const run = await findRun(pool, projectId, runId);
    if (!run) throw notFound('Run');
    const resultId = resultIdOf(run.id, testIdOf(projectId, ref.file, ref.titlePath, ref.projectName));
    const { rows } = await pool.query('SELECT attachments FROM attempts WHERE result_id = $1 AND retry = $2', [resultId, ref.retry]);
    if (rows.length === 0) throw notFound('Test result (file, titlePath, projectName, retry)');
    const named = (rows[0].attachments as { name: string; path?: string; contentType: string }[]).filter((a) => a.name === ref.name);
    const match = ref.path === undefined ? named : named.filter((a) => a.path === ref.path);
    if (match.length === 0) throw notFound(`Attachment "${ref.name}"${ref.path === undefined ? '' : ` with that path`} in that attempt`);
    if (match.length > 1)
      throw validation('several attachments share that name: give the path', [
        { path: 'query.path', message: 'required when names repeat' },
      ]);
    const reported = match[0]!;
    const contentType = cleanContentType(reported.contentType) ?? cleanContentType(opts.contentType) ?? 'application/octet-stream';

    const used = await runArtifactBytes(pool, run.id);
    const room = config.ARTIFACT_MAX_RUN_BYTES - used;
    if (opts.contentLength !== undefined && opts.contentLength > config.ARTIFACT_MAX_FILE_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', `An artifact is limited to ${config.ARTIFACT_MAX_FILE_BYTES} bytes`);
    if (room <= 0 || (opts.contentLength !== undefined && opts.contentLength > room))
      throw new AppError('PAYLOAD_TOO_LARGE', `The artifacts of a run are limited to ${config.ARTIFACT_MAX_RUN_BYTES} bytes`);
    const fileMax = Math.min(config.ARTIFACT_MAX_FILE_BYTES, room);
    const what = fileMax < config.ARTIFACT_MAX_FILE_BYTES ? 'What is left of this run’s artifact allowance' : 'An artifact';

    const id = newId();
    const key = this.keyFor(projectId, id);
    const stored = await this.putObject(key, body, contentType, fileMax, what);
    const expiresAt = await this.expiryFor(projectId);
    let oldKey: string | undefined;
    let saved: { answer: ArtifactJson; replayed: boolean };
    try {
      // Under an Idempotency-Key the row and the key's record commit together; a retry of a stored upload is answered
      // from the record, and the bytes it sent again are dropped.
      saved = await idempotentTransaction(pool, opts.call?.idem(), jsonAnswers<ArtifactJson>(), async (c) => {
        // Concurrent uploads into one run: the total is checked again under the run's row lock.
        await c.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [run.id]);
        const replaced = await upsertAttachmentArtifact(c, {
          id,
          projectId,
          runId: run.id,
          resultId,
          retry: ref.retry,
          name: ref.name,
          sourcePath: reported.path ?? '',
          fileName: path.posix.basename(reported.path ?? '') || ref.name,
          contentType,
          sizeBytes: stored.size,
          sha256: stored.sha256,
          storageKey: key,
          expiresAt,
        });
        if ((await runArtifactBytes(c, run.id)) > config.ARTIFACT_MAX_RUN_BYTES)
          throw new AppError('PAYLOAD_TOO_LARGE', `The artifacts of a run are limited to ${config.ARTIFACT_MAX_RUN_BYTES} bytes`);
        oldKey = replaced.oldKey;
        return this.json((await findArtifact(c, replaced.id))!);
      });
    } catch (err) {
      await this.discard([key]);
      throw err;
    }
    if (saved.replayed) {
      await this.discard([key]);
      opts.call?.replayed();
      return saved.answer;
    }
    await this.discard([oldKey]);
    return saved.answer;
  }

  // ---- compatibility uploads --------------------------------------------------------------------------------

  /** `POST /api/storage/token`: an upload scoped to the project, accepting blobs for three hours. */
  async createUpload(projectId: string) {
    const id = newId();
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.w.clock().getTime() + UPLOAD_TTL_MS);
    await insertUpload(this.w.pool, { id, projectId, secretHash: hashSecret(secret), expiresAt });
    return {
      tokenId: id,
      sasToken: `sv=assay1&se=${encodeURIComponent(expiresAt.toISOString())}&sig=${secret}`,
      blobPath: `${UPLOADS_SEGMENT}/${id}`,
      uniqueId: id,
      expiresAt: expiresAt.toISOString(),
      maxSize: this.w.config.ARTIFACT_MAX_FILE_BYTES,
      permissions: ['write', 'create'],
      allowedFileTypes: [] as string[],
    };
  }

  /** `PUT {containerUrl}/uploads/{id}/{path}?{sasToken}`: one blob of an upload, staged until a report claims it. */
  async putBlob(uploadId: string, blobPath: string, sig: string | undefined, body: Readable, contentType: string | undefined) {
    const { pool, config } = this.w;
    const upload = /^[0-9a-f]{24}$/.test(uploadId) ? await findUpload(pool, uploadId) : undefined;
    const given = sig ? hashSecret(sig) : undefined;
    if (!upload || !given || !timingSafeEqual(upload.secretHash, given))
      throw new AppError('FORBIDDEN', 'The upload signature is not valid');
    if (upload.expiresAt.getTime() <= this.w.clock().getTime()) throw new AppError('FORBIDDEN', 'The upload token has expired');
    if (!BLOB_PATH.test(blobPath) || blobPath.split('/').some((s) => s === '..' || s === '.'))
      throw validation('invalid blob path', [{ path: 'path', message: 'segments of letters, digits, ".", "_" and "-"' }]);
    const id = newId();
    const key = this.keyFor(upload.projectId, id);
    const type = cleanContentType(contentType) ?? 'application/octet-stream';
    const stored = await this.putObject(key, body, type, config.ARTIFACT_MAX_FILE_BYTES, 'An artifact');
    let old: string | undefined;
    try {
      old = await upsertStagedBlob(pool, {
        id,
        projectId: upload.projectId,
        runId: null,
        resultId: null,
        retry: null,
        name: path.posix.basename(blobPath),
        sourcePath: '',
        fileName: path.posix.basename(blobPath),
        contentType: type,
        sizeBytes: stored.size,
        sha256: stored.sha256,
        storageKey: key,
        expiresAt: new Date(upload.expiresAt.getTime() + UNCLAIMED_GRACE_MS),
        uploadId,
        blobPath,
      });
    } catch (err) {
      await this.discard([key]);
      throw err;
    }
    await this.discard([old]);
  }

  /**
   * After a compatibility report is stored: each attachment whose path is the URL of a staged blob of one of
   * the project's uploads gets that blob; what else those uploads hold (an HTML report) becomes the run's own
   * files. Answers how many blobs were linked.
   */
  async linkUploads(projectId: string, runId: string): Promise<number> {
    const { pool } = this.w;
    const paths = await uploadedAttachmentPaths(pool, runId);
    const uploads = new Set<string>();
    // The HTML report the metadata names (tdpw --upload-html) brings its upload too.
    const { rows } = await pool.query(`SELECT extra->>'htmlReportUrl' AS html FROM runs WHERE id = $1`, [runId]);
    const html = UPLOAD_URL.exec(rows[0]?.html ?? '');
    if (html) uploads.add(html[1]!);
    if (paths.length === 0 && uploads.size === 0) return 0;
    const expiresAt = await this.expiryFor(projectId);
    let linked = 0;
    for (const p of paths) {
      const m = UPLOAD_URL.exec(p.path);
      if (!m) continue;
      const blobPath = decodeURIComponent(m[2]!);
      const ok = await claimStagedBlob(pool, {
        projectId,
        uploadId: m[1]!,
        blobPath,
        runId,
        resultId: p.resultId,
        retry: p.retry,
        name: p.name,
        sourcePath: p.path,
        expiresAt,
      });
      if (ok) {
        uploads.add(m[1]!);
        linked++;
      }
    }
    if (uploads.size > 0) {
      for (const b of await unclaimedBlobs(pool, projectId, [...uploads])) {
        const ok = await claimStagedBlob(pool, {
          projectId,
          uploadId: b.uploadId,
          blobPath: b.blobPath,
          runId,
          resultId: null,
          retry: null,
          name: b.blobPath.split('/')[0]!,
          sourcePath: b.blobPath,
          expiresAt,
        });
        if (ok) linked++;
      }
    }
    return linked;
  }

  // ---- reads ----------------------------------------------------------------------------------------------

  /** A result's attachments (every attempt), each with its stored artifact or null. */
  async attachmentsOf(resultId: string, attempts: { retry: number; attachments: AttachmentJson[] }[]): Promise<AttemptAttachmentJson[]> {
    const stored = attempts.some((a) => a.attachments.length > 0) ? await artifactsOfResult(this.w.pool, resultId) : [];
    const byKey = new Map(stored.map((a) => [attachmentKey(a.retry!, a.name, a.sourcePath), a]));
    return attempts.flatMap((a) =>
      a.attachments.map((x) => {
        const s = byKey.get(attachmentKey(a.retry, x.name, x.path ?? ''));
        return { ...x, retry: a.retry, artifact: s ? this.json(s) : null };
      }),
    );
  }

  /** The app's Playwright trace viewer opening a stored trace. */
  viewerUrl(downloadUrl: string): string {
    return `${this.w.config.PUBLIC_UI_URL.replace(/\/+$/, '')}/trace/index.html?trace=${encodeURIComponent(downloadUrl)}`;
  }

  json(a: ArtifactRow): ArtifactJson {
    const link = this.urls.download(a.id, this.w.clock());
    return {
      id: a.id,
      name: a.name,
      fileName: a.fileName,
      contentType: a.contentType,
      size: a.sizeBytes,
      sha256: a.sha256,
      uploadedAt: a.createdAt.toISOString(),
      expiresAt: a.expiresAt.toISOString(),
      url: link.url,
      urlExpiresAt: link.expiresAt.toISOString(),
    };
  }

  /**
   * A file of a run's HTML report by its path below the report's folder URL (the signature is checked by the
   * route): a run-level file stored as `html/{path}`, with the report's headers. Its HTML documents get
   * REPORT_STORAGE_SHIM and are served whole (no ranges: the bytes differ from the stored ones by the shim).
   */
  async openReportFile(runId: string, relative: string, range: string | undefined): Promise<Download> {
    const blobPath = /^[0-9a-f]{24}$/.test(runId) ? reportBlobPath(relative) : null;
    const row = blobPath ? await runFileByPath(this.w.pool, runId, blobPath, this.w.clock()) : undefined;
    if (!row) throw notFound('File of the HTML report');
    const html = row.contentType === 'text/html';
    const r = html ? undefined : parseRange(range, row.sizeBytes);
    if (r === 'unsatisfiable')
      throw new AppError('RANGE_NOT_SATISFIABLE', undefined, { headers: { 'Content-Range': `bytes */${row.sizeBytes}` } });
    const read = await this.store.get(row.storageKey, r);
    if (!read) throw notFound('File of the HTML report');
    const headers: Record<string, string> = {
      'Content-Type': html ? 'text/html; charset=utf-8' : row.contentType,
      'Content-Length': String(html ? row.sizeBytes + REPORT_STORAGE_SHIM.length : r ? r.end - r.start + 1 : row.sizeBytes),
      'Content-Disposition': contentDisposition(row.fileName.slice(0, 200), {
        type: INLINE_TYPES.has(row.contentType) || html ? 'inline' : 'attachment',
      }),
      'Content-Security-Policy': HTML_REPORT_CSP,
      'X-Content-Type-Options': 'nosniff',
      // The report's document has an opaque origin: to it, even its own folder is another origin.
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Cache-Control': 'private, max-age=300',
      'Accept-Ranges': html ? 'none' : 'bytes',
      ETag: html ? `"${row.sha256}-report"` : `"${row.sha256}"`,
    };
    if (r) headers['Content-Range'] = `bytes ${r.start}-${r.end}/${row.sizeBytes}`;
    const body = html ? insertAfterDoctype(read.body as Readable, REPORT_STORAGE_SHIM) : read.body;
    return { row, read: { ...read, body }, headers, status: r ? 206 : 200 };
  }

  /** The object behind a download, with its headers; `projectId` (an authenticated read) must own it. */
  async open(id: string, range: string | undefined, projectId?: string): Promise<Download> {
    const row = /^[0-9a-f]{24}$/.test(id) ? await findArtifact(this.w.pool, id) : undefined;
    if (!row || (projectId !== undefined && row.projectId !== projectId) || row.expiresAt.getTime() <= this.w.clock().getTime())
      throw notFound('Artifact');
    const r = parseRange(range, row.sizeBytes);
    if (r === 'unsatisfiable')
      throw new AppError('RANGE_NOT_SATISFIABLE', undefined, { headers: { 'Content-Range': `bytes */${row.sizeBytes}` } });
    const read = await this.store.get(row.storageKey, r);
    if (!read) throw notFound('Artifact');
    const html = row.contentType === 'text/html';
    const headers: Record<string, string> = {
      'Content-Type': html ? 'text/html; charset=utf-8' : row.contentType,
      'Content-Length': String(r ? r.end - r.start + 1 : row.sizeBytes),
      'Content-Disposition': contentDisposition(row.fileName.slice(0, 200), {
        type: INLINE_TYPES.has(row.contentType) || html ? 'inline' : 'attachment',
      }),
      'Content-Security-Policy': html ? HTML_CSP : ARTIFACT_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, max-age=300',
      'Accept-Ranges': 'bytes',
      ETag: `"${row.sha256}"`,
    };
    if (r) headers['Content-Range'] = `bytes ${r.start}-${r.end}/${row.sizeBytes}`;
    return { row, read, headers, status: r ? 206 : 200 };
  }
}

/** One `bytes=` range (the only kind a media element or a resumed download sends); others: the whole object. */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined | 'unsatisfiable' {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
