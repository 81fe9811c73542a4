/**
 * Action rules (CONTRACT §2): `skip` (served to reporters as a skip list), `quarantine` (the failure is recorded
 * but does not fail the run) and `tag` (adds a tag). A rule matches a test when every criterion it sets holds:
 * `titlePattern` is a case-insensitive regular expression on the full title (`describe › test`), `file` equals
 * the test's file or is a path suffix of it, `matchTag` is one of the test's tags (with or without `@`).
 */
import type { RuleOperationName, RuleStatusName } from '@assay/contracts/runs/values';

export interface RuleRow {
  id: string;
  projectId: string;
  name: string;
  description: string;
  operations: RuleOperationName[];
  titlePattern: string | null;
  file: string | null;
  matchTag: string | null;
  tag: string | null;
  enabled: boolean;
  expiresAt: Date | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export function ruleStatus(r: Pick<RuleRow, 'enabled' | 'expiresAt'>, now: Date): RuleStatusName {
  if (!r.enabled) return 'disabled';
  if (r.expiresAt && r.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

const bare = (t: string) => t.replace(/^@/, '').toLowerCase();

export interface CompiledRule {
  rule: RuleRow;
  matches(t: { file: string; fullTitle: string; tags: string[] }): boolean;
}

export function compileRule(rule: RuleRow): CompiledRule {
  let re: RegExp | undefined;
  if (rule.titlePattern) {
    try {
      re = new RegExp(rule.titlePattern, 'i');
    } catch {
      re = undefined;
    }
  }
  const file = rule.file?.replace(/^\.?\//, '');
  return {
    rule,
    matches(t) {
      if (rule.titlePattern && (!re || !re.test(t.fullTitle))) return false;
      if (file && !(t.file === file || t.file.endsWith(`/${file}`))) return false;
      if (rule.matchTag && !t.tags.some((x) => bare(x) === bare(rule.matchTag!))) return false;
      return true;
    },
  };
}

/** Manual case references in a test's annotations and tags: `TC-12`. */
export function manualCaseRefs(annotations: { type: string; description?: string }[], tags: string[]): string[] {
  const refs = new Set<string>();
  const scan = (s: string | undefined) => {
    for (const m of (s ?? '').matchAll(/\bTC-\d+\b/gi)) refs.add(m[0].toUpperCase());
  };
  for (const a of annotations) {
    scan(a.type);
    scan(a.description);
  }
  for (const t of tags) scan(t);
  return [...refs];
}
