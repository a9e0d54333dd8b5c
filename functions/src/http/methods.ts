export type HttpMethod = 'GET' | 'POST' | 'DELETE';
