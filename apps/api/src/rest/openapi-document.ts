import { appRouter } from '@petstore/core';
import { type OpenAPIObject, generateOpenApiDocument } from 'trpc-to-openapi';

export interface DocumentServers {
  publicBaseUrl: string;
  stagingBaseUrl?: string | undefined;
}

/** The OpenAPI document, generated from the procedures and their zod schemas. */
export const createOpenApiDocument = ({ publicBaseUrl }: DocumentServers): OpenAPIObject =>
  generateOpenApiDocument(appRouter, {
    title: 'Petstore',
    version: '1.0.0',
    baseUrl: publicBaseUrl,
  });
