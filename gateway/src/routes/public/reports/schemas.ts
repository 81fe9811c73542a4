/** CONTRACT §2 report shapes: the request body, the status object, and the PDF answers. */
import { Type, type Static } from '@sinclair/typebox';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Report } from '@assay/proto/assay/reports/v1/reports_pb';

const DateTime = Type.String({ format: 'date-time' });
const Filter = (what: string) => Type.String({ minLength: 1, maxLength: 200, description: `only runs of this ${what} (exact match)` });

export const REPORT_DAYS = { minimum: 1, maximum: 30, default: 7 };

export const CreateReportBody = Type.Object(
  {
    days: Type.Optional(Type.Integer({ ...REPORT_DAYS, description: 'the N whole UTC days ending today (today included)' })),
    branch: Type.Optional(Filter('git branch')),
    environment: Type.Optional(Filter('environment')),
    tags: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 20 }),
          Type.String({ maxLength: 4000, description: 'comma-separated' }),
        ],
        { description: 'only results whose test or run carries at least one of these tags (at most 20)' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateReportBodyValue = Static<typeof CreateReportBody>;

export const PdfQuery = Type.Object({
  days: Type.Optional(Type.Integer({ ...REPORT_DAYS, description: 'the N whole UTC days ending today (today included)' })),
  branch: Type.Optional(Filter('git branch')),
  environment: Type.Optional(Filter('environment')),
});
export type PdfQueryValue = Static<typeof PdfQuery>;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ReportSchema = Type.Object(
  {
    reportId: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('failed')], {
      description: 'pending until the PDF is generated; then ready (download it) or failed (see failureReason)',
    }),
    createdAt: DateTime,
    completedAt: Type.Union([DateTime, Type.Null()], { description: 'when it became ready or failed' }),
    sizeBytes: Type.Integer({ minimum: 0, description: 'length of the PDF in bytes (0 until ready): exactly the length of the download' }),
    fileName: Type.String({ description: 'file name of the download: assay-<project>-<from>_<until>.pdf' }),
    failureReason: Nullable(Type.String({ description: 'why generation failed' })),
    period: Type.Object({
      days: Type.Integer({ minimum: 1 }),
      from: Type.String({ format: 'date', description: 'first UTC day covered' }),
      until: Type.String({ format: 'date', description: 'last UTC day covered' }),
    }),
    filters: Type.Object({
      branch: Nullable(Type.String()),
      environment: Nullable(Type.String()),
      tags: Type.Array(Type.String()),
    }),
    expiresAt: Type.String({ format: 'date-time', description: 'when the stored report is deleted (retention)' }),
  },
  { title: 'Report' },
);
export type ReportJson = Static<typeof ReportSchema>;

export function reportToJson(r: Report): ReportJson {
  return {
    reportId: r.id,
    status: r.status as ReportJson['status'],
    createdAt: timestampDate(r.createdAt!).toISOString(),
    completedAt: r.completedAt ? timestampDate(r.completedAt).toISOString() : null,
    sizeBytes: Number(r.sizeBytes),
    fileName: r.fileName,
    failureReason: r.status === 'failed' ? r.failureReason : null,
    period: { days: r.days, from: r.fromDate, until: r.untilDate },
    filters: { branch: r.filters?.branch || null, environment: r.filters?.environment || null, tags: r.filters?.tags ?? [] },
    expiresAt: timestampDate(r.expiresAt!).toISOString(),
  };
}

/** The OpenAPI description of a PDF answer (binary body, attachment headers). */
export const PdfResponse = {
  description: 'The PDF report, as an attachment.',
  headers: {
    'Content-Disposition': {
      type: 'string',
      description: '`attachment; filename="assay-<project>-<from>_<until>.pdf"` (and the RFC 5987 `filename*`)',
    },
    'Content-Length': { type: 'integer', minimum: 1, description: 'length of the PDF in bytes' },
  },
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/** Headers of the service's PDF answer that travel to the client. */
export const PDF_HEADERS = ['content-type', 'content-length', 'content-disposition', 'cache-control'];
