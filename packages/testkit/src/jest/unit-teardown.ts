export default async function unitTeardown(): Promise<void> {
  await globalThis.__ASSAY_UNIT__?.stop();
}
