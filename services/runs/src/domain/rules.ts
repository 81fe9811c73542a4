/**
 * Action rules (CONTRACT §2): `skip` (served to reporters as a skip list), `quarantine` (the failure is recorded
 * but does not fail the run) and `tag` (adds a tag). A rule matches a test when every criterion it sets holds:
 * `titlePattern` is a case-insensitive regular expression on the full title (`describe › test`), `file` equals
 * the test's file or is a path suffix of it, `matchTag` is one of the test's tags (with or without `@`).
 *
 * Patterns are written by admins but run on every ingested title, so they run on RE2 (re2js): matching time is
 * linear in the title whatever the pattern, so no pattern can backtrack catastrophically. RE2 has no lookaround or
 * backreferences; a pattern using them is refused when the rule is created.
 */
import { RE2JS } from 're2js';
import { MAX_RULE_PATTERN, type RuleOperationName, type RuleStatusName } from '@assay/contracts/runs/values';
import { characterCount } from '@assay/contracts/common/text';

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

/** The pattern compiled, or why it cannot be (too long, or syntax RE2 does not have). */
export function compileTitlePattern(pattern: string): { re: RE2JS } | { problem: string } {
  if (characterCount(pattern) > MAX_RULE_PATTERN) return { problem: `must be at most ${MAX_RULE_PATTERN} characters` };
  try {
    return { re: RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE) };
  } catch (e) {
    return { problem: `is not a valid regular expression (RE2 syntax: no lookaround or backreferences): ${(e as Error).message}` };
  }
}

export function compileRule(rule: RuleRow): CompiledRule {
  const compiled = rule.titlePattern ? compileTitlePattern(rule.titlePattern) : undefined;
  const re = compiled && 're' in compiled ? compiled.re : undefined;
  const file = rule.file?.replace(/^\.?\//, '');
  return {
    rule,
    matches(t) {
      if (rule.titlePattern && (!re || !re.matcher(t.fullTitle).find())) return false;
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
