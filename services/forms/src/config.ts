import { defineConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

export const loadFormsConfig = defineConfig(z.object({ ...serviceEnv, PORT: serviceEnv.PORT.default(4001) }));
