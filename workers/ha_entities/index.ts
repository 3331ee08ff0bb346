export { createHaEntitiesTool, haEntitiesTool } from './tool.js';
