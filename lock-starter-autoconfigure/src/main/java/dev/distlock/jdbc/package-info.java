/**
 * The JDBC backend: {@link dev.distlock.jdbc.JdbcLockProvider} keeps leases as rows of
 * one table on PostgreSQL, MariaDB/MySQL or H2, with the database's clock, fencing tokens
 * from a sequence per table, a background sweep that deletes released and expired rows,
 * and PostgreSQL LISTEN/NOTIFY to wake waiters. The statements of each dialect live
 * beside this package as {@code operations-<platform>.sql}, the table as
 * {@code schema-<platform>.sql}.
 */
@NullMarked
package dev.distlock.jdbc;

import org.jspecify.annotations.NullMarked;
