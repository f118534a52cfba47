/** Containers: the topics an account's memory is divided into. */

export interface Container {
  id: string;
  accountId: string;
  name: string;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export interface ContainerRepository {
  listContainers(accountId: string): Container[];
  getContainer(accountId: string, id: string): Container | null;
  getContainerByName(accountId: string, name: string): Container | null;
  /** Throws `UniqueViolation` when the account has a container of that name already. */
  insertContainer(container: Container): void;
  /** Throws `UniqueViolation` when the new name is another container's. */
  updateContainer(accountId: string, id: string, patch: { name?: string; description?: string; updatedAt: number }): void;
  deleteContainer(accountId: string, id: string): void;
}
