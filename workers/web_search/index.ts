export { webSearchTool, createWebSearchTool } from './tool.js';
