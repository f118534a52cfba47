/** Containers: the topics an account's memory is divided into. */

export interface Container {
  id: string;
  accountId: string;
  name: string;
  description: string;
  createdAt: number;
  updatedAt: number;
  /** Whether learning may promote facts drawn from its documents to the profile (migration 0018). */
  learnsIntoProfile: boolean;
}

export interface ContainerRepository {
  listContainers(accountId: string): Container[];
  getContainer(accountId: string, id: string): Container | null;
  /** The container whose name reads as `name`: the same once compared as names are (src/names.ts, nameKey). */
  getContainerByName(accountId: string, name: string): Container | null;
  /** Throws `UniqueViolation` when the account has a container of that name already, as names are compared. Learns into the profile unless told otherwise. */
  insertContainer(container: Omit<Container, 'learnsIntoProfile'> & { learnsIntoProfile?: boolean }): void;
  /** Throws `UniqueViolation` when the new name is another container's, as names are compared. */
  updateContainer(accountId: string, id: string, patch: { name?: string; description?: string; learnsIntoProfile?: boolean; updatedAt: number }): void;
  deleteContainer(accountId: string, id: string): void;
}
