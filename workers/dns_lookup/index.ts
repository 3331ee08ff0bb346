export { dnsLookupTool } from './tool.js';
