/** The `action-rules` family (spec §4.2): counts per operation of the active rules and the quarantined tests of a window. */
import { Type, type Static } from '@sinclair/typebox';
import type { GetActionRulesSummaryResponse } from '@assay/proto/assay/runs/v1/runs_pb';
import { Ok } from '../common/envelope';
import { DEFAULT_RULE_WINDOW_DAYS, RULE_WINDOW_DAYS } from './values';

export const ActionRulesSummaryQuery = Type.Object({
  windowDays: Type.Optional(
    Type.Union(
      RULE_WINDOW_DAYS.map((d) => Type.Literal(d)),
      { default: DEFAULT_RULE_WINDOW_DAYS },
    ),
  ),
});

const SummarySchema = Type.Object({
  rules: Type.Object({ skip: Type.Integer(), quarantine: Type.Integer(), tag: Type.Integer() }),
  quarantinedTests: Type.Integer(),
  windowDays: Type.Integer(),
});

export const ActionRulesSummaryAnswer = Ok(SummarySchema);

export function summaryToJson(s: GetActionRulesSummaryResponse): Static<typeof SummarySchema> {
  return {
    rules: { skip: s.skip, quarantine: s.quarantine, tag: s.tag },
    quarantinedTests: s.quarantinedTests,
    windowDays: s.windowDays,
  };
}
