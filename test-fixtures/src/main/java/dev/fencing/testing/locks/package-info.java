/**
 * Fixtures for lock stores: the shared lock contract, and real consensus servers to test them
 * against.
 *
 * <table>
 *   <caption>What is here</caption>
 *   <tr><td>{@link dev.fencing.testing.locks.FencedLocksContractTest}</td>
 *       <td>the tests every fenced lock store passes; extend it for your store</td></tr>
 *   <tr><td>{@link dev.fencing.testing.locks.ClusterFailoverContractTest}</td>
 *       <td>the failovers a store on a three-member consensus cluster survives (leader killed,
 *       member paused past the TTL), with a database as the oracle; extend it per store</td></tr>
 *   <tr><td>{@link dev.fencing.testing.locks.ServerCluster}</td>
 *       <td>what the two clusters below share: members to kill, pause and restart, the leader</td></tr>
 *   <tr><td>{@link dev.fencing.testing.locks.EtcdCluster}</td>
 *       <td>throw-away {@code etcd} processes (one member or a cluster) to kill, pause and restart</td></tr>
 *   <tr><td>{@link dev.fencing.testing.locks.ZooKeeperEnsemble}</td>
 *       <td>throw-away ZooKeeper servers (child JVMs; standalone or an ensemble) to kill, pause and restart</td></tr>
 *   <tr><td>{@link dev.fencing.testing.locks.ServerProcess}</td>
 *       <td>one such server process: SIGKILL, SIGSTOP, SIGCONT</td></tr>
 * </table>
 */
package dev.fencing.testing.locks;
