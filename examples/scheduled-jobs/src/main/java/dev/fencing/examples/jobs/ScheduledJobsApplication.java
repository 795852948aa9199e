package dev.fencing.examples.jobs;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Two ShedLock jobs whose writes are fenced. Nothing here names fencing: the fencing starter wraps
 * the data source and provides the {@code FencedLocks}, and fencing-shedlock turns them into
 * ShedLock's {@code LockProvider}. Run several instances: each job runs on one at a time, and an
 * instance whose job outlived {@code lockAtMostFor} has its late writes refused.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
public class ScheduledJobsApplication {

    public static void main(String[] args) {
        SpringApplication.run(ScheduledJobsApplication.class, args);
    }
}
