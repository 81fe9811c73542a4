/**
 * The reports domain's closed value sets and limits (CONTRACT §2 "Reports"), written once: the gateway's schemas
 * and the reports service's checks use these, and the proto enum maps onto them (./reports.ts).
 */
import { REPORT_DATA_MAX_DAYS } from '../analytics/values';

/** pending until the PDF is generated; then ready (download it) or failed (see failureReason). */
export const REPORT_STATUSES = ['pending', 'ready', 'failed'] as const;
export type ReportStatusName = (typeof REPORT_STATUSES)[number];

/** The period: the N whole UTC days ending today; 7 when none is given. */
export const DEFAULT_REPORT_DAYS = 7;
/** The public API allows 1–30 days … */
export const MAX_PUBLIC_REPORT_DAYS = 30;
/** … the service itself up to the analytics report window (90). */
export const MAX_REPORT_DAYS = REPORT_DATA_MAX_DAYS;

/** Branch, environment and each tag: at most this many characters. */
export const MAX_FILTER_LENGTH = 200;
export const MAX_REPORT_TAGS = 20;
/** The comma-separated form of `tags`. */
export const MAX_TAGS_TEXT_LENGTH = 4000;
