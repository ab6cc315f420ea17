export const Team = async () => ({});
