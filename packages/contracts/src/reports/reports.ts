/**
 * The `reports` family (CONTRACT §2 "Reports"): the request body, the query of the synchronous PDF, the status
 * object and its mapper from reports.proto, and the PDF answers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ReportStatus, type Report } from '@assay/proto/assay/reports/v1/reports_pb';
import { enumMap } from '../common/enums';
import { DateTime, iso, isoRequired, Nullable } from '../common/json';
import {
  DEFAULT_REPORT_DAYS,
  MAX_FILTER_LENGTH,
  MAX_PUBLIC_REPORT_DAYS,
  MAX_REPORT_TAGS,
  MAX_TAGS_TEXT_LENGTH,
  REPORT_STATUSES,
  type ReportStatusName,
} from './values';

export const reportStatus = enumMap<ReportStatusName, ReportStatus>([
  ['pending', ReportStatus.PENDING],
  ['ready', ReportStatus.READY],
  ['failed', ReportStatus.FAILED],
]);

const Days = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: MAX_PUBLIC_REPORT_DAYS,
    default: DEFAULT_REPORT_DAYS,
    description: 'the N whole UTC days ending today (today included)',
  }),
);
const Filter = (what: string) =>
  Type.String({ minLength: 1, maxLength: MAX_FILTER_LENGTH, description: `only runs of this ${what} (exact match)` });

export const ReportParams = Type.Object({ projectId: Type.String(), reportId: Type.String() });

export const CreateReportBody = Type.Object(
  {
    days: Days,
    branch: Type.Optional(Filter('git branch')),
    environment: Type.Optional(Filter('environment')),
    tags: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String({ minLength: 1, maxLength: MAX_FILTER_LENGTH }), { maxItems: MAX_REPORT_TAGS }),
          Type.String({ maxLength: MAX_TAGS_TEXT_LENGTH, description: 'comma-separated' }),
        ],
        { description: `only results whose test or run carries at least one of these tags (at most ${MAX_REPORT_TAGS})` },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateReportBodyValue = Static<typeof CreateReportBody>;

export const PdfQuery = Type.Object({
  days: Days,
  branch: Type.Optional(Filter('git branch')),
  environment: Type.Optional(Filter('environment')),
});

/** The tags of a body: either form as a list. */
export const reportTags = (tags: CreateReportBodyValue['tags']): string[] => (typeof tags === 'string' ? tags.split(',') : (tags ?? []));

export const ReportSchema = Type.Object(
  {
    reportId: Type.String(),
    status: Type.Union(
      REPORT_STATUSES.map((s) => Type.Literal(s)),
      { description: 'pending until the PDF is generated; then ready (download it) or failed (see failureReason)' },
    ),
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
  const status = reportStatus.fromProto(r.status);
  return {
    reportId: r.id,
    status,
    createdAt: isoRequired(r.createdAt),
    completedAt: iso(r.completedAt),
    sizeBytes: Number(r.sizeBytes),
    fileName: r.fileName,
    failureReason: status === 'failed' ? r.failureReason : null,
    period: { days: r.days, from: r.fromDate, until: r.untilDate },
    filters: { branch: r.filters?.branch || null, environment: r.filters?.environment || null, tags: r.filters?.tags ?? [] },
    expiresAt: isoRequired(r.expiresAt),
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
