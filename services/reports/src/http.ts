/**
 * PDF bytes on the service's internal HTTP port (never as one RPC message). The gateway authenticates,
 * authorizes and rate-limits, then streams these answers through; the service kit accepts a call only with
 * the internal token and hands over the caller as `request.principal`.
 *   GET /reports/:projectId/:reportId/download   the stored PDF, read from Postgres in chunks
 *   GET /reports/:projectId/pdf                  a report rendered now (days 1–90, branch, environment, tags)
 * Errors are the envelope with the status of the error table.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ID_PATTERN } from '@assay/db';
import { AppError, conflict, notFound } from '@assay/errors';
import type { Principal } from '@assay/service-kit';
import { generatePdf, projectName } from './domain/collect';
import contentDisposition from 'content-disposition';
import { checkParams, periodEnding, reportFileName } from './domain/period';
import { unwrap } from './handlers/reports';
import { findReport, readPdfChunk } from './store/reports';
import type { Wiring } from './wiring';

/** Bytes read from Postgres per query while streaming a download. */
export const DOWNLOAD_CHUNK_BYTES = 256 * 1024;

function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('UNAUTHORIZED', 'missing caller principal');
  return request.principal;
}

function sendPdf(reply: FastifyReply, fileName: string, size: number, body: Buffer | Readable) {
  reply
    .code(200)
    .header('content-type', 'application/pdf')
    .header('content-length', String(size))
    .header('content-disposition', contentDisposition(fileName))
    .header('cache-control', 'private, no-store');
  return reply.send(body);
}

/** The stored PDF as a stream of DOWNLOAD_CHUNK_BYTES reads (a report never sits whole in memory here). */
function pdfStream(rt: Wiring, reportId: string, size: number): Readable {
  let offset = 0;
  return Readable.from(
    (async function* () {
      while (offset < size) {
        const chunk = await readPdfChunk(rt.pool, reportId, offset, Math.min(DOWNLOAD_CHUNK_BYTES, size - offset));
        // Deleted by the retention sweeper while being read: end early (the client sees a short body).
        if (chunk.length === 0) return;
        offset += chunk.length;
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
}

const one = (v: unknown): string | undefined => (Array.isArray(v) ? one(v[0]) : typeof v === 'string' ? v : undefined);

export async function reportRoutes(app: FastifyInstance, rt: Wiring): Promise<void> {
  app.get<{ Params: { projectId: string; reportId: string } }>('/reports/:projectId/:reportId/download', async (request, reply) => {
    callerOf(request);
    const { projectId, reportId } = request.params;
    const row = ID_PATTERN.test(reportId) ? await findReport(rt.pool, projectId, reportId) : undefined;
    if (!row) throw notFound('Report');
    if (row.status === 'pending') throw conflict('The report is not ready yet (status pending); try again shortly');
    if (row.status === 'failed') throw conflict(`The report failed and has no PDF: ${row.failureReason}`);
    return sendPdf(reply, row.fileName, row.sizeBytes, pdfStream(rt, row.id, row.sizeBytes));
  });

  app.get<{ Params: { projectId: string }; Querystring: Record<string, unknown> }>('/reports/:projectId/pdf', async (request, reply) => {
    const principal = callerOf(request);
    const { projectId } = request.params;
    const q = request.query;
    const rawDays = one(q.days);
    const days = rawDays === undefined || rawDays === '' ? undefined : Number(rawDays);
    if (days !== undefined && !Number.isInteger(days))
      throw new AppError('VALIDATION_ERROR', 'days must be an integer', {
        details: [{ path: 'query.days', message: 'must be an integer' }],
      });
    const tags = (one(q.tags) ?? '').split(',');
    const params = checkParams({ days, branch: one(q.branch), environment: one(q.environment), tags }, 'query');
    const now = rt.clock();
    const period = periodEnding(now, params.days);
    const started = performance.now();
    try {
      const name = await projectName(rt.sources, projectId).catch(unwrap);
      const pdf = await generatePdf(rt.sources, { projectId, projectName: name, period, params, principal, now }).catch(unwrap);
      rt.metrics.generated('sync', 'ready', (performance.now() - started) / 1000, pdf.length);
      return sendPdf(reply, reportFileName(name, projectId, period), pdf.length, pdf);
    } catch (err) {
      rt.metrics.generated('sync', 'failed', (performance.now() - started) / 1000);
      throw err;
    }
  });
}
