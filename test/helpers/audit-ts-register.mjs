// `node --import` entry that installs audit-ts-loader.mjs (see there).
import { register } from 'node:module';

register('./audit-ts-loader.mjs', import.meta.url);
