/**
 * The pure parts of the reporter: the build id and metadata read from each CI's variables, and skip rules
 * matched as the server matches them (title pattern on `describe › test`, file or path suffix, tag with or
 * without @, every criterion set must hold), plus the known tests of the skip list.
 */
import { buildIdFromEnv, metadataFromEnv } from '../src/ci';
import { skipRuleFor, type SkipList } from '../src/rules';

describe('build id', () => {
  it.each([
    [{ ASSAY_BUILD_ID: 'mine', GITHUB_RUN_ID: '1' }, 'mine'],
    [{ GITHUB_RUN_ID: '42', GITHUB_RUN_ATTEMPT: '2' }, 'github-42-2'],
    [{ GITHUB_RUN_ID: '42' }, 'github-42-1'],
    [{ CI_PIPELINE_ID: '7' }, 'gitlab-7'],
    [{ BUILDKITE_BUILD_ID: 'b-1' }, 'buildkite-b-1'],
    [{ CIRCLE_WORKFLOW_ID: 'w' }, 'circleci-w'],
    [{ BUILD_BUILDID: '9', SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: 'https://dev.azure.com/x/' }, 'azure-9-1'],
    [{ JENKINS_URL: 'https://ci', BUILD_TAG: 'jenkins-job-3' }, 'jenkins-jenkins-job-3'],
    [{ ASSAY_BUILD_ID: '  ' }, undefined],
    [{}, undefined],
  ])('%j → %s', (env, id) => {
    expect(buildIdFromEnv(env)).toBe(id);
  });

  it('reads branch, commit and the build URL of GitHub Actions; ASSAY_* wins', () => {
    expect(
      metadataFromEnv({
        GITHUB_RUN_ID: '42',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_REF_NAME: 'main',
        GITHUB_SHA: 'abc',
        GITHUB_ACTOR: 'ada',
        ASSAY_COMMIT: 'def',
        ASSAY_TAGS: 'nightly, e2e',
      }),
    ).toEqual({
      git: { branch: 'main', commit: { hash: 'def', message: undefined, author: 'ada' } },
      ci: { provider: 'github', pipelineId: '42', buildUrl: 'https://github.com/acme/shop/actions/runs/42' },
      tags: ['nightly', 'e2e'],
    });
    expect(metadataFromEnv({})).toEqual({});
  });
});

describe('skip rules', () => {
  const rule = (r: Partial<SkipList['rules'][number]>) => ({ id: 'r', name: 'rule', titlePattern: null, file: null, tag: null, ...r });
  const t = { file: 'tests/search.spec.ts', titlePath: ['search', 'finds'], projectName: 'chromium', tags: ['@slow'] };
  const list = (rules: SkipList['rules'], tests: SkipList['tests'] = []): SkipList => ({ rules, tests });

  it('matches on every criterion a rule sets, as the server does', () => {
    expect(skipRuleFor(list([rule({ titlePattern: '^SEARCH › fin' })]), t)?.id).toBe('r');
    expect(skipRuleFor(list([rule({ titlePattern: '^finds' })]), t)).toBeUndefined();
    expect(skipRuleFor(list([rule({ file: 'search.spec.ts' })]), t)).toBeDefined();
    expect(skipRuleFor(list([rule({ file: './tests/search.spec.ts' })]), t)).toBeDefined();
    expect(skipRuleFor(list([rule({ file: 'arch.spec.ts' })]), t)).toBeUndefined();
    expect(skipRuleFor(list([rule({ tag: 'slow' })]), t)).toBeDefined();
    expect(skipRuleFor(list([rule({ tag: '@SLOW', file: 'other.spec.ts' })]), t)).toBeUndefined();
    // A rule with no criterion matches nothing; an invalid pattern (RE2 syntax JavaScript lacks) neither.
    expect(skipRuleFor(list([rule({})]), t)).toBeUndefined();
    expect(skipRuleFor(list([rule({ titlePattern: '(?P<x>a' })]), t)).toBeUndefined();
  });

  it('skips the known tests the list names, by file, title path and project', () => {
    const known = [{ file: 'tests/search.spec.ts', titlePath: ['search', 'finds'], projectName: 'chromium' }];
    expect(skipRuleFor(list([rule({ name: 'Skip search', titlePattern: 'x{1000}' })], known), t)?.name).toBe('Skip search');
    expect(skipRuleFor(list([], known), { ...t, projectName: 'firefox' })).toBeUndefined();
  });
});
