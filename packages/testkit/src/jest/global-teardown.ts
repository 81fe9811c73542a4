export default async function globalTeardown(): Promise<void> {
  const ctx = globalThis.__ASSAY_TEST__;
  if (!ctx) return;
  await ctx.system.stop();
  await ctx.infra.stop();
}
