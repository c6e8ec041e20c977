import { defineConfig } from 'faultline/config';

export default defineConfig({ run: { trials: 2 } });
