/** Deterministic ids and fingerprints: the same test, result or error always lands on the same row. */
import { hash } from 'node:crypto';

// `hash`, one call without a Hash object: half the time of createHash…digest for these short inputs, and ingestion
// takes two of them a test (its id, its result's id).
const hash24 = (...parts: string[]) => hash('sha256', JSON.stringify(parts), 'hex').slice(0, 24);

/** Stable identity of an automated test: project, file, title path, project (browser) name. */
export const testIdOf = (projectId: string, file: string, titlePath: string[], projectName: string) =>
  hash24('test', projectId, file, ...titlePath, '\u0000', projectName);

/** One result per test per run. */
export const resultIdOf = (runId: string, testId: string) => hash24('result', runId, testId);

export const errorGroupIdOf = (projectId: string, fingerprint: string) => hash24('error-group', projectId, fingerprint);

/** `describe › test` as Playwright prints it. */
export const fullTitleOf = (titlePath: string[]) => titlePath.join(' › ');

/**
 * Fingerprint of a failure: its first meaningful line with the volatile parts (numbers, ids, quoted values,
 * URLs, paths, durations) replaced, so the same failure in different runs groups together.
 */
export function normalizeErrorMessage(message: string): string {
  const line =
    message
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/(?:[A-Za-z]:)?(?:[\\/][\w.@-]+){2,}/g, '<path>')
    .replace(/(["'`]).*?\1/g, '<str>')
    .replace(/\b[0-9a-f]{8,}\b/gi, '<hex>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .slice(0, 300);
}

export const fingerprintOf = (message: string) => hash('sha256', normalizeErrorMessage(message), 'hex').slice(0, 16);
