package dev.fencing.internal.lock;

import io.lettuce.core.event.Event;
import io.lettuce.core.event.EventBus;
import io.lettuce.core.event.jfr.EventRecorder;
import reactor.core.publisher.Flux;

/**
 * The event bus of {@link RedisConnections}' own client resources: it records Lettuce's
 * events in JFR as Lettuce's {@code DefaultEventBus} does, and has nobody to deliver them to,
 * since those resources never leave {@code RedisConnections} (nor does Lettuce subscribe to a
 * bus itself). {@code DefaultEventBus} builds a Reactor sink and scheduler for subscribers,
 * which loads about 300 of Reactor's classes on a first connection in a fresh JVM.
 */
final class RecordingEventBus implements EventBus {

    private final EventRecorder recorder = EventRecorder.getInstance();

    /** No events: nobody outside {@link RedisConnections} holds its client resources. */
    @Override
    public Flux<Event> get() {
        return Flux.empty();
    }

    @Override
    public void publish(Event event) {
        recorder.record(event);
    }
}
