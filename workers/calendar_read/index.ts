export { calendarReadTool, createCalendarReadTool } from './tool.js';
