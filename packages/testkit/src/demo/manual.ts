/**
 * Demo data for manual testing, written through the public API as a team would: three suites (one nested),
 * twelve cases mixing classic and Gherkin steps with tags, priorities and one custom field, a release under
 * way, an exploratory session, and a manual run of the release with some verdicts set.
 */
import { Api, type ApiResponse } from '../http';

type Body = Record<string, unknown>;

interface DemoCase extends Body {
  title: string;
}

const classic = (...steps: [action: string, expectedResult: string, data?: string][]) => ({
  testStepsDeclarationType: 'Classic',
  steps: steps.map(([action, expectedResult, data]) => ({ action, expectedResult, ...(data ? { data } : {}) })),
});

const gherkin = (...steps: [event: string, stepDescription: string][]) => ({
  testStepsDeclarationType: 'Gherkin',
  steps: steps.map(([event, stepDescription]) => ({ event, stepDescription })),
});

const AUTHENTICATION: DemoCase[] = [
  {
    title: 'Sign in with a valid e-mail and password',
    priority: 'critical',
    severity: 'blocker',
    type: 'smoke',
    behavior: 'positive',
    tags: 'smoke,auth',
    ...classic(
      ['Open /login', 'The sign-in form shows Email and Password'],
      ['Enter the e-mail and password of an active user', 'Both fields accept the input', 'ada@acme.test / correct horse battery staple'],
      ['Press Sign in', "The user's projects open"],
    ),
  },
  {
    title: 'A wrong password and an unknown e-mail get the same message',
    priority: 'high',
    severity: 'major',
    type: 'security',
    behavior: 'negative',
    tags: 'auth,security',
    ...classic(
      ['Sign in with a known e-mail and a wrong password', 'An error message shows'],
      ['Sign in with an unknown e-mail', 'The same message shows, word for word'],
    ),
  },
  {
    title: 'Sign-in attempts are limited per account',
    priority: 'high',
    severity: 'critical',
    type: 'security',
    behavior: 'destructive',
    tags: 'auth,security,rate-limit',
    // Classic steps with sub-steps.
    testStepsDeclarationType: 'Classic',
    steps: [
      {
        action: 'Fail to sign in 10 times within 15 minutes',
        expectedResult: 'Each attempt answers the usual message',
        subSteps: [
          { action: 'Attempts 1 to 9', expectedResult: 'Refused: wrong password' },
          { action: 'Attempt 10', expectedResult: 'Refused: wrong password' },
        ],
      },
      { action: 'Sign in with the right password', expectedResult: 'Refused until the window has passed' },
    ],
  },
  {
    title: 'Signing out ends the session',
    priority: 'medium',
    type: 'functional',
    tags: 'auth',
    ...gherkin(
      ['Given', 'a signed-in user on the runs page'],
      ['When', 'they choose Sign out'],
      ['Then', 'the sign-in page shows'],
      ['And', 'going back does not show the runs again'],
    ),
  },
  {
    title: 'Sign out everywhere ends the sessions of other browsers',
    priority: 'low',
    status: 'draft',
    type: 'functional',
    tags: 'auth,sessions',
    ...gherkin(
      ['Given', 'a user signed in on two browsers'],
      ['When', 'they choose Sign out everywhere on the first'],
      ['Then', 'the second browser is sent to the sign-in page on its next request'],
    ),
  },
];

const PASSWORD_RESET: DemoCase[] = [
  {
    title: 'An invitation link lets a user choose a password',
    priority: 'high',
    type: 'acceptance',
    tags: 'auth,onboarding',
    ...classic(
      ['Open the invitation link', 'The page asks for a new password twice'],
      ['Enter a password of at least 12 characters twice', 'The user is signed in'],
    ),
  },
  {
    title: 'An invitation link works once',
    priority: 'medium',
    type: 'security',
    behavior: 'negative',
    tags: 'auth,onboarding',
    ...gherkin(
      ['Given', 'an invitation link that was already used'],
      ['When', 'it is opened again'],
      ['Then', 'the page says the link is no longer valid'],
    ),
  },
  {
    title: 'A short password is refused',
    priority: 'medium',
    type: 'functional',
    behavior: 'negative',
    tags: 'auth,validation',
    ...gherkin(
      ['Given', 'the choose-a-password page'],
      ['When', 'the person enters an 8-character password'],
      ['Then', 'the page says the password needs at least 12 characters'],
      ['But', 'the link stays usable'],
    ),
  },
];

const CHECKOUT: DemoCase[] = [
  {
    title: 'Pay with a saved card',
    priority: 'critical',
    severity: 'blocker',
    type: 'e2e',
    layer: 'e2e',
    tags: 'smoke,checkout,payments',
    customFields: { browser: 'Chrome, Firefox, Safari' },
    ...classic(
      ['Add one product to the cart', 'The cart shows 1 item'],
      ['Open checkout and choose the saved card', 'The card ending 4242 is selected', 'Visa 4242'],
      ['Confirm the order', 'The confirmation page shows the order number'],
    ),
  },
  {
    title: 'A discount code lowers the total',
    priority: 'high',
    type: 'regression',
    tags: 'checkout,discounts',
    ...gherkin(
      ['Given', 'a cart worth 100.00'],
      ['And', 'the discount code SPRING10 is active'],
      ['When', 'the shopper applies SPRING10'],
      ['Then', 'the total is 90.00'],
    ),
  },
  {
    title: 'Checkout with an empty cart is refused',
    priority: 'medium',
    type: 'functional',
    behavior: 'negative',
    tags: 'checkout',
    ...classic(['Empty the cart', 'The cart says it is empty'], ['Open /checkout directly', 'The shopper is sent back to the cart']),
  },
  {
    title: 'The order confirmation e-mail arrives',
    priority: 'low',
    type: 'integration',
    automationStatus: 'automated',
    flags: ['To be Automated'],
    tags: 'checkout,email',
    ...classic(
      ['Place an order', 'The confirmation page shows'],
      ['Open the mailbox of the shopper', 'An e-mail with the order number arrived'],
    ),
  },
];

async function send(api: Api, method: 'POST' | 'PATCH', path: string, body: Body): Promise<ApiResponse> {
  const res = await api.request(method, path, { body });
  if (res.status < 200 || res.status >= 300) throw new Error(`demo data: ${method} ${path} answered ${res.status} ${res.text}`);
  return res;
}

export async function seedDemoManual(gatewayUrl: string, token: string, projectId: string): Promise<void> {
  const api = new Api(gatewayUrl, token);
  const p = `/${projectId}`;
  const id = async (path: string, body: Body) => (await send(api, 'POST', `${p}${path}`, body)).body.data._id as string;

  const authentication = await id('/manual-test-suites', { name: 'Authentication', description: 'Signing in and out, sessions, limits' });
  const passwordReset = await id('/manual-test-suites', {
    name: 'Invitations and passwords',
    description: 'Choosing a password from an invitation link',
    parentSuiteId: authentication,
  });
  const checkout = await id('/manual-test-suites', { name: 'Checkout', description: 'Cart, payment and confirmation' });

  const cases: Record<string, string> = {};
  for (const [suiteId, list] of [
    [authentication, AUTHENTICATION],
    [passwordReset, PASSWORD_RESET],
    [checkout, CHECKOUT],
  ] as const) {
    for (const c of list) cases[c.title] = await id('/manual-test-cases', { ...c, suiteId });
  }

  const release = await id('/releases', {
    name: '2.4.0',
    description: 'Spring release: sign-in hardening and discount codes',
    type: 'minor',
    startDate: '2026-03-02',
    endDate: '2026-03-20',
    branch: 'release/2.4',
    environment: 'staging',
    buildTarget: { platform: 'web', version: '2.4.0', buildNumber: '118' },
    note: '<p>Focus on <strong>authentication</strong> and the new discount codes.</p>',
  });
  await send(api, 'PATCH', `${p}/releases/${release}`, { isStarted: true });

  await id('/sessions', {
    name: 'Explore checkout on a phone',
    mission:
      '<p>Explore the checkout on a small screen with a slow network to discover layout and timeout problems.</p><ul><li>Saved cards</li><li>Discount codes</li></ul>',
    sessionType: 'Feature tour',
    environment: 'staging',
    config: 'Safari on iOS 18, throttled to 3G',
    releaseId: release,
    estimate: 60,
    tags: ['checkout', 'mobile'],
  });

  const run = await id('/manual-runs', {
    name: '2.4.0 regression',
    releaseId: release,
    environment: 'staging',
    selectionMode: 'selected',
    suiteIds: [authentication],
    testCaseIds: [cases['Pay with a saved card']!, cases['A discount code lowers the total']!],
    tags: ['regression'],
  });
  const verdict = (title: string, body: Body) => send(api, 'PATCH', `${p}/manual-runs/${run}/test-cases/${cases[title]!}`, body);
  await verdict('Sign in with a valid e-mail and password', { result: 'passed', elapsed: 95 });
  await verdict('A wrong password and an unknown e-mail get the same message', { result: 'passed', elapsed: 140 });
  await verdict('Sign-in attempts are limited per account', { result: 'failed', elapsed: 410 });
  await verdict('Sign-in attempts are limited per account', {
    comment: '<p>The 11th attempt with the right password was accepted.</p>',
    stepResults: [
      { order: 1, status: 'passed' },
      { order: 2, status: 'failed', comment: '<p>Signed in.</p>' },
    ],
  });
  await verdict('Pay with a saved card', { result: 'blocked', elapsed: 60 });
  await verdict('Pay with a saved card', { comment: '<p>The payment sandbox is down on staging.</p>' });
}
