/**
 * Schemas that routes reference with `Type.Ref(...)` instead of inlining: registered once at the root, so
 * serialization resolves them and OpenAPI lists them under components. A family adds its shared shapes here.
 */
import type { TSchema } from '@sinclair/typebox';
import { ErrorEnvelope, Pagination } from '@assay/contracts/common/envelope';
import { SuiteSchema } from '@assay/contracts/manual-testing/manual-test-suites';
import {
  CaseDetailSchema,
  CaseListItemSchema,
  ClassicStepSchema,
  GherkinStepSchema,
} from '@assay/contracts/manual-testing/manual-test-cases';
import { ReleaseSchema } from '@assay/contracts/manual-testing/releases';
import { SessionSchema } from '@assay/contracts/manual-testing/sessions';
import { ManualRunSchema, RunCaseSchema } from '@assay/contracts/manual-testing/manual-runs';
import { TestCaseSchema, TestRunSchema, TestStatsSchema } from '@assay/contracts/runs/test-runs';
import { HistoryItemSchema } from '@assay/contracts/runs/test-cases';
import { TestStepSchema } from '@assay/contracts/runs/debug-bundle';
import { AnalyticsBreakdownSchema, AnalyticsDaySchema, AnalyticsTestSchema } from '@assay/contracts/analytics/figures';
import { AnalyticsPerformanceSchema } from '@assay/contracts/analytics/analytics';
import { AnalyticsSpecSchema } from '@assay/contracts/analytics/specs';
import { AccountSchema, AppTokenSchema } from '@assay/contracts/identity/app';
import { WebhookPayloadSchema } from '@assay/contracts/webhooks/webhooks';

export const componentSchemas: TSchema[] = [
  ErrorEnvelope,
  Pagination,
  SuiteSchema,
  ClassicStepSchema,
  GherkinStepSchema,
  CaseListItemSchema,
  CaseDetailSchema,
  ReleaseSchema,
  SessionSchema,
  ManualRunSchema,
  RunCaseSchema,
  TestStatsSchema,
  TestRunSchema,
  TestCaseSchema,
  TestStepSchema,
  HistoryItemSchema,
  AnalyticsTestSchema,
  AnalyticsPerformanceSchema,
  AnalyticsSpecSchema,
  AnalyticsDaySchema,
  AnalyticsBreakdownSchema,
  AccountSchema,
  AppTokenSchema,
  WebhookPayloadSchema,
];
