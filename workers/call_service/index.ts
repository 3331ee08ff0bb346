export { callServiceTool, createCallServiceTool } from './tool.js';
