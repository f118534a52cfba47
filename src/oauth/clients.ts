/** Finding the app behind a client_id: a live registration, or a client ID metadata document. */
import type { Clock } from '../clock';
import type { OAuthClient, Repositories } from '../storage/store';
import { type ClientMetadataResolver, isMetadataDocumentClientId } from './client-metadata';

export class OAuthClients {
  constructor(
    private readonly store: Repositories,
    private readonly clock: Clock,
    private readonly documents: ClientMetadataResolver,
  ) {}

  /**
   * The app, or null when no such client exists (a registration never approved expires). A
   * metadata-document client_id is resolved through its document: throws ClientMetadataError when
   * that cannot be fetched or does not check out.
   */
  async find(clientId: string): Promise<OAuthClient | null> {
    if (isMetadataDocumentClientId(clientId)) return this.documents.resolve(clientId);
    return this.stored(clientId);
  }

  /** The app as stored, without fetching anything (the token endpoint never fetches). */
  async stored(clientId: string): Promise<OAuthClient | null> {
    const client = await this.store.oauth.getClient(clientId);
    if (!client) return null;
    if (client.kind === 'registered' && client.expiresAt != null && client.expiresAt <= this.clock.now()) return null;
    return client;
  }
}
