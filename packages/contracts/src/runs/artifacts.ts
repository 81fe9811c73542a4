/**
 * Artifacts (CONTRACT §10): the stored bytes of a result's attachments. Every read that lists an attachment
 * adds its `artifact` once its bytes are stored; the ingestion API's upload answers one; the gateway's
 * download routes serve them.
 */
import { Type, type Static } from '@sinclair/typebox';

export const ArtifactSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: "the attachment's name in the report (screenshot, video, trace, ...)" }),
    fileName: Type.String(),
    contentType: Type.String(),
    size: Type.Integer({ description: 'bytes' }),
    sha256: Type.String({ description: 'hex SHA-256 of the stored bytes' }),
    uploadedAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time', description: "when retention deletes it (the project's artifact retention)" }),
    url: Type.String({
      description:
        'signed download URL, valid until urlExpiresAt, no token needed; images and videos inline, anything else as an attachment',
    }),
    urlExpiresAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Artifact' },
);
export type ArtifactJson = Static<typeof ArtifactSchema>;

/** Query of the ingestion API's upload: which attachment of which attempt (the report's own fields). */
export const AttachmentUploadQuery = Type.Object(
  {
    file: Type.String({ minLength: 1, maxLength: 1000, description: "the test's spec file, as in its results" }),
    titlePath: Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }), { minItems: 1, maxItems: 40 })], {
      description: 'the title path, one `titlePath=` per element, in order',
    }),
    projectName: Type.Optional(Type.String({ maxLength: 200, description: 'Playwright project (browser) name; default empty' })),
    retry: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0 })),
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "the attachment's name in the results (screenshot, video, trace, ...)",
    }),
    path: Type.Optional(Type.String({ maxLength: 2000, description: "the attachment's path in the results: needed when names repeat" })),
  },
  { additionalProperties: false },
);
export type AttachmentUploadQueryValue = Static<typeof AttachmentUploadQuery>;

export const DownloadQuery = Type.Object(
  { expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

export const StorageTokenSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    tokenId: Type.String(),
    sasToken: Type.String({ description: 'query string to append to each PUT' }),
    containerUrl: Type.String(),
    blobPath: Type.String({ description: 'prefix of every blob of this upload' }),
    uniqueId: Type.String(),
    expiresAt: Type.String({ format: 'date-time' }),
    maxSize: Type.Integer(),
    permissions: Type.Array(Type.String()),
    allowedFileTypes: Type.Array(Type.String()),
  }),
});
