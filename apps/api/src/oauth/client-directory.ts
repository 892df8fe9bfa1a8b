/** Every client the authorization server knows: first-party (static), metadata documents (fetched), dynamic (stored). */
import { ClientMetadataDocuments, isMetadataDocumentClientId } from "./client-metadata-documents.ts";
import { findClient, type OAuthClient } from "./clients.ts";
import type { DynamicClients } from "./dynamic-clients.ts";
import { OAuthError } from "./errors.ts";

export class ClientDirectory {
  constructor(
    private readonly documents: ClientMetadataDocuments,
    private readonly dynamic: DynamicClients | null,
    private readonly allowHttpDocuments: boolean,
  ) {}

  /** The client, undefined when unknown; throws invalid_client when its metadata document is refused. */
  async find(id: string | undefined): Promise<OAuthClient | undefined> {
    if (!id) return undefined;
    const client = findClient(id);
    if (client) return client;
    if (isMetadataDocumentClientId(id, this.allowHttpDocuments)) return this.documents.resolve(id);
    return this.dynamic?.find(id);
  }

  /** The client, or invalid_client (RFC 6749 §5.2). */
  async require(id: string | undefined): Promise<OAuthClient> {
    const client = await this.find(id);
    if (!client) throw new OAuthError("invalid_client", id ? "Unknown client" : "client_id is required");
    return client;
  }
}
