/**
 * The runs contract's enum maps: every value of a value set has its proto enum value and back, and every proto
 * enum value but UNSPECIFIED has its JSON spelling (a value added to a proto enum and not to values.ts fails
 * here, not in a service's answer). Also the `include` rule shared by the test-runs and test-cases routes.
 */
import { RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import {
  AttemptStatus,
  BundleFormat,
  RuleOperation,
  RuleStatus,
  RunSection,
  TestOutcome,
  TestStatus,
} from '@assay/proto/assay/runs/v1/runs_pb';
import { isAppError } from '@assay/errors';
import type { EnumMap } from '../../src/common/enums';
import { bundleFormat } from '../../src/runs/debug-bundle';
import { attemptStatus, testOutcome } from '../../src/runs/test-cases';
import { includeOf, runSection, runStatus, testStatus } from '../../src/runs/test-runs';
import { ruleOperation, ruleStatus } from '../../src/runs/workflow-rules';
import { RUN_SECTIONS } from '../../src/runs/values';

const numbers = (e: Record<string, string | number>) => Object.values(e).filter((v): v is number => typeof v === 'number' && v !== 0);

describe('runs enum maps', () => {
  it.each([
    ['runStatus', runStatus, RunStatus, ['passed', 'failed', 'interrupted', 'incomplete', 'running']],
    ['testStatus', testStatus, TestStatus, ['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted']],
    ['attemptStatus', attemptStatus, AttemptStatus, ['passed', 'failed', 'timedOut', 'skipped', 'interrupted']],
    ['testOutcome', testOutcome, TestOutcome, ['expected', 'unexpected', 'flaky', 'skipped']],
    ['runSection', runSection, RunSection, ['errors', 'coverage', 'specs', 'artifacts']],
    ['bundleFormat', bundleFormat, BundleFormat, ['json', 'md']],
    ['ruleOperation', ruleOperation, RuleOperation, ['skip', 'quarantine', 'tag']],
    ['ruleStatus', ruleStatus, RuleStatus, ['active', 'expired', 'disabled']],
  ] as [string, EnumMap<string, number>, Record<string, string | number>, string[]][])(
    '%s covers the value set and every proto value both ways',
    (_name, map, protoEnum, names) => {
      expect(map.names).toEqual(names);
      expect(names.map((n) => map.fromProto(map.toProto(n)))).toEqual(names);
      expect(numbers(protoEnum).map((v) => map.toProto(map.fromProto(v)))).toEqual(numbers(protoEnum));
      expect(() => map.fromProto(0)).toThrow();
    },
  );

  it('spells camelCase values in UPPER_SNAKE on the wire', () => {
    expect(testStatus.toProto('timedOut')).toBe(TestStatus.TIMED_OUT);
    expect(attemptStatus.fromProto(AttemptStatus.TIMED_OUT)).toBe('timedOut');
  });
});

describe('includeOf', () => {
  it('reads a comma list of sections, `all` standing for every one', () => {
    expect(includeOf(undefined, RUN_SECTIONS)).toEqual([]);
    expect(includeOf(' specs, errors ,', RUN_SECTIONS)).toEqual(['errors', 'specs']);
    expect(includeOf('errors,all', RUN_SECTIONS)).toEqual([...RUN_SECTIONS]);
  });

  it('refuses an unknown value at query.include, naming the allowed ones', () => {
    try {
      includeOf('errors,logs', RUN_SECTIONS);
      throw new Error('accepted');
    } catch (err) {
      expect(isAppError(err) && [err.reason, err.details]).toEqual([
        'VALIDATION_ERROR',
        [{ path: 'query.include', message: 'each value must be one of errors, coverage, specs, artifacts, all' }],
      ]);
    }
  });
});
