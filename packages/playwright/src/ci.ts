/**
 * What the CI environment says about the build: the build id that joins the shards of one build into one run,
 * and the run's metadata (branch, commit, CI provider and build URL). Reads the variables the common CI
 * systems set; ASSAY_BUILD_ID wins over all of them.
 */

type Env = Record<string, string | undefined>;

/** Which CI built it, and the id of the build (one id for every shard of a build, a new one per re-run). */
export function buildIdFromEnv(env: Env = process.env): string | undefined {
  const v = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const explicit = v('ASSAY_BUILD_ID');
  if (explicit) return explicit;
  // GitHub Actions: a re-run of a workflow keeps its run id and counts attempts.
  if (v('GITHUB_RUN_ID')) return `github-${v('GITHUB_RUN_ID')}-${v('GITHUB_RUN_ATTEMPT') ?? '1'}`;
  if (v('CI_PIPELINE_ID')) return `gitlab-${v('CI_PIPELINE_ID')}`;
  if (v('BUILDKITE_BUILD_ID')) return `buildkite-${v('BUILDKITE_BUILD_ID')}`;
  if (v('CIRCLE_WORKFLOW_ID')) return `circleci-${v('CIRCLE_WORKFLOW_ID')}`;
  if (v('BUILD_BUILDID') && v('SYSTEM_TEAMFOUNDATIONCOLLECTIONURI')) return `azure-${v('BUILD_BUILDID')}-${v('SYSTEM_JOBATTEMPT') ?? '1'}`;
  if (v('BITBUCKET_BUILD_NUMBER')) return `bitbucket-${v('BITBUCKET_PIPELINE_UUID') ?? v('BITBUCKET_BUILD_NUMBER')}`;
  if (v('JENKINS_URL') && v('BUILD_TAG')) return `jenkins-${v('BUILD_TAG')}`;
  return undefined;
}

export interface RunMetadata {
  git?: { branch?: string; commit?: { hash?: string; message?: string; author?: string } };
  environment?: string;
  ci?: { provider?: string; pipelineId?: string; buildUrl?: string };
  tags?: string[];
}

/** Branch, commit and CI links from the CI environment (empty when not in a known CI). */
export function metadataFromEnv(env: Env = process.env): RunMetadata {
  const first = (...names: string[]) => names.map((n) => env[n]?.trim()).find((x) => x);
  const branch = first(
    'ASSAY_BRANCH',
    'GITHUB_HEAD_REF',
    'GITHUB_REF_NAME',
    'CI_COMMIT_REF_NAME',
    'BUILDKITE_BRANCH',
    'CIRCLE_BRANCH',
    'BITBUCKET_BRANCH',
    'BRANCH_NAME',
    'GIT_BRANCH',
  );
  const hash = first('ASSAY_COMMIT', 'GITHUB_SHA', 'CI_COMMIT_SHA', 'BUILDKITE_COMMIT', 'CIRCLE_SHA1', 'BITBUCKET_COMMIT', 'GIT_COMMIT');
  const message = first('ASSAY_COMMIT_MESSAGE', 'CI_COMMIT_MESSAGE', 'BUILDKITE_MESSAGE');
  const author = first('ASSAY_COMMIT_AUTHOR', 'GITHUB_ACTOR', 'GITLAB_USER_NAME', 'BUILDKITE_BUILD_AUTHOR', 'CIRCLE_USERNAME');
  let ci: RunMetadata['ci'];
  if (env.GITHUB_RUN_ID) {
    const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
    ci = {
      provider: 'github',
      pipelineId: env.GITHUB_RUN_ID,
      buildUrl: env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
    };
  } else if (env.CI_PIPELINE_ID) ci = { provider: 'gitlab', pipelineId: env.CI_PIPELINE_ID, buildUrl: env.CI_PIPELINE_URL };
  else if (env.BUILDKITE_BUILD_ID) ci = { provider: 'buildkite', pipelineId: env.BUILDKITE_BUILD_ID, buildUrl: env.BUILDKITE_BUILD_URL };
  else if (env.CIRCLE_WORKFLOW_ID) ci = { provider: 'circleci', pipelineId: env.CIRCLE_WORKFLOW_ID, buildUrl: env.CIRCLE_BUILD_URL };
  else if (env.JENKINS_URL) ci = { provider: 'jenkins', pipelineId: env.BUILD_TAG, buildUrl: env.BUILD_URL };
  const out: RunMetadata = {};
  if (branch || hash || message || author) out.git = { branch, commit: { hash, message, author } };
  if (env.ASSAY_ENVIRONMENT) out.environment = env.ASSAY_ENVIRONMENT;
  if (ci) out.ci = Object.fromEntries(Object.entries(ci).filter(([, x]) => x)) as RunMetadata['ci'];
  if (env.ASSAY_TAGS)
    out.tags = env.ASSAY_TAGS.split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  return out;
}
