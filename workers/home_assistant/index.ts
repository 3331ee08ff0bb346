export { homeAssistantTool } from './tool.js';
