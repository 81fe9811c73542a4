/**
 * `GET /{projectId}/artifacts/{artifactId}` (CONTRACT §10): an artifact downloaded by a caller of the project
 * (bearer token or the web app's session) rather than by its signed URL; another project's token gets 404.
 * Streamed from the runs service with its safe-serving headers.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ID_PATTERN } from '@assay/db';
import { notFound } from '@assay/errors';
import { fetchFromService, relayStream } from '../../service-http';
import { ARTIFACT_HEADERS, ArtifactDownloadResponse } from '../../artifacts';
import { typed } from '../../typed';

export default async function artifactDownloadRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);
  app.get(
    '/:projectId/artifacts/:artifactId',
    {
      config: { errors: ['RANGE_NOT_SATISFIABLE'] },
      schema: {
        tags: ['Artifacts'],
        operationId: 'downloadArtifact',
        summary: 'Download an artifact (authenticated)',
        description: 'The same bytes and headers as its signed `url`, for a caller with read access to the project.',
        params: Type.Object({ projectId: Type.String(), artifactId: Type.String({ maxLength: 64 }) }),
        response: { 200: ArtifactDownloadResponse, 206: ArtifactDownloadResponse },
      },
    },
    async (request, reply) => {
      const { projectId, artifactId } = request.params;
      if (!ID_PATTERN.test(artifactId)) throw notFound('Artifact');
      const res = await fetchFromService(
        request,
        `${app.services.runsHttpUrl}/projects/${encodeURIComponent(projectId)}/artifacts/${encodeURIComponent(artifactId)}`,
        { ...app.services.serviceHttp, method: 'GET', pass: ['range'] },
      );
      return relayStream(reply, res, ARTIFACT_HEADERS);
    },
  );
}
