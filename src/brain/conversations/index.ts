// Public surface of the conversation store: server-side chat history in SQLite.
export { openConversationStore } from './store.js';
