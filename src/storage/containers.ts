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
  /** The account's containers, oldest first. */
  list(accountId: string): Promise<Container[]>;
  get(accountId: string, id: string): Promise<Container | null>;
  /** The container whose name reads as `name`: the same once compared as names are (src/names.ts, nameKey). */
  getByName(accountId: string, name: string): Promise<Container | null>;
  /** Throws `UniqueViolation` when the account has a container of that name already, as names are compared. Learns into the profile unless told otherwise. */
  insert(container: Omit<Container, 'learnsIntoProfile'> & { learnsIntoProfile?: boolean }): Promise<void>;
  /** Throws `UniqueViolation` when the new name is another container's, as names are compared. */
  update(
    accountId: string,
    id: string,
    patch: { name?: string; description?: string; learnsIntoProfile?: boolean; updatedAt: number },
  ): Promise<void>;
  /** Deletes the container row alone; deleting one with what it holds is `ForgettingRepository.forget`'s. */
  delete(accountId: string, id: string): Promise<void>;
}
