import { z } from 'zod';
import { containersInReach } from '../../auth/access';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toContainer } from '../shapes';

export const listContainers = defineOperation({
  name: 'list_containers',
  description: 'List the memory containers (topics) this credential may use.',
  access: 'read',
  output: S.ContainerList,
  accessed: (result) => result.containers.map((c) => ({ action: 'returned', kind: 'container', id: c.id })),
  input: z.object({}),
  run: async (ctx) => ({ containers: (await containersInReach(ctx)).map(toContainer) }),
});
