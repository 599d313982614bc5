export * as loadOptions from './loadOptions';
export * as listSearch from './listSearch';
export * as credentialTest from './credentialTest';
export * as resourceMapping from './resourceMapping';
