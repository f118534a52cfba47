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
  /** The account's containers, oldest first. */
  list(accountId: string): Promise<Container[]>;
  get(accountId: string, id: string): Promise<Container | null>;
  getByName(accountId: string, name: string): Promise<Container | null>;
  /** Throws `UniqueViolation` when the account has a container of that name already. */
  insert(container: Container): Promise<void>;
  /** Throws `UniqueViolation` when the new name is another container's. */
  update(accountId: string, id: string, patch: { name?: string; description?: string; updatedAt: number }): Promise<void>;
  /** Deletes the container row alone; deleting one with what it holds is `ForgettingRepository.forget`'s. */
  delete(accountId: string, id: string): Promise<void>;
}
