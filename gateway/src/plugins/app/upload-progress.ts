/**
 * Artifact uploads (the ingestion API's attachment upload, the compatibility blob PUT) are bounded by progress,
 * not by total time. REQUEST_TIMEOUT_MS bounds receiving any other request (Node's `requestTimeout`, 408) and
 * each service call; a 1 GB video from a CI runner on a slow link needs far longer, and no total is both long
 * enough for the slowest honest link and short enough to matter as a protection. So while such an upload streams
 * to the runs service, a watchdog ends it after ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS without progress — no byte passed
 * on to the service, or after the last one no answer from it — whatever it took in total:
 *   - the client sent nothing (the gateway was waiting to read): 408 REQUEST_TIMEOUT, connection closed;
 *   - the service took nothing (the upload was held back by backpressure) or did not answer: 503.
 * Node's own check still fires at REQUEST_TIMEOUT_MS; the client-error handler (input-limits.ts) lets it pass for
 * a socket whose upload a watchdog is watching (Node checks a request once: its next request is checked again).
 * Once the answer is sent, whatever of the body is still coming is read into nothing (ingest `rawBodies`) for at
 * most REQUEST_TIMEOUT_MS, as for any request, then the connection is closed.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Sockets whose current request is an upload under a watchdog (Node's requestTimeout leaves them to it). */
const watchedSockets = new WeakSet<Socket>();
const watchdogs = new WeakMap<IncomingMessage, UploadWatchdog>();

export const isWatchedUpload = (socket: Socket): boolean => watchedSockets.has(socket);

/** The watchdog of a request's upload, if it has one. */
export const watchdogOf = (raw: IncomingMessage): UploadWatchdog | undefined => watchdogs.get(raw);

export class UploadWatchdog {
  private readonly controller = new AbortController();
  private timer?: NodeJS.Timeout;
  private finished = false;
  /** Set when it fired: who made no progress. */
  stalled?: 'client' | 'service';
  /** Aborted when it fires: the signal of the call to the service (it replaces the call's deadline). */
  readonly signal: AbortSignal = this.controller.signal;

  constructor(
    private readonly raw: IncomingMessage,
    readonly idleMs: number,
    private readonly drainMs: number,
  ) {
    watchedSockets.add(raw.socket);
    watchdogs.set(raw, this);
    this.touch();
  }

  /** Progress: bytes moved on, or the service answered. */
  touch(): void {
    if (this.finished) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), this.idleMs);
  }

  private fire(): void {
    // Paused: the pipe to the service was full (backpressure), so the client was not the one waiting.
    this.stalled = this.raw.complete || this.raw.isPaused() ? 'service' : 'client';
    this.controller.abort(new Error(`no upload progress for ${this.idleMs} ms`));
  }

  /**
   * The answer has been sent: the upload is over. What is left of a body the client is still sending (an early
   * 4xx) may be read for REQUEST_TIMEOUT_MS, as for any request; then the connection is closed.
   */
  answered(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    const { raw } = this;
    watchedSockets.delete(raw.socket);
    watchdogs.delete(raw);
    if (raw.complete) return;
    const drain = setTimeout(() => {
      if (!raw.complete) raw.socket.destroy();
    }, this.drainMs);
    raw.once('end', () => clearTimeout(drain));
    raw.socket.once('close', () => clearTimeout(drain));
  }
}
