/** fencing-locks-etcd: {@code EtcdFencedLocks}, fenced locks whose fences are the etcd cluster's revisions. */
module dev.fencing.lock.etcd {
    // FencedLocks and the lock-store SPI are in its API
    requires transitive dev.fencing.driver;
    // jetcd 0.7.7's jar names no module: its name comes from the file name, jetcd-core-<version>.jar
    requires jetcd.core;
    // TLS: jetcd hands the builder Netty's SslContextBuilder to configure
    requires io.netty.handler;

    exports dev.fencing.lock.etcd;
}
