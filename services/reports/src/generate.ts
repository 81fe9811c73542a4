/** One report from request to bytes: collect the data over RPC, render the PDF. Used by the worker and the synchronous endpoint. */
import type { Principal } from '@assay/service-kit';
import { collect, type Sources } from './domain/collect';
import type { Period, ReportParams } from './domain/period';
import { renderReport } from './render/pdf';

export interface GenerateInput {
  projectId: string;
  projectName: string;
  period: Period;
  params: ReportParams;
  principal: Principal;
  now: Date;
  signal?: AbortSignal;
}

export async function generatePdf(sources: Sources, input: GenerateInput): Promise<Buffer> {
  const model = await collect(sources, input);
  return renderReport(model);
}
