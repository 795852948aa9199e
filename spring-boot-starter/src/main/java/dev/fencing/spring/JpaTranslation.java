package dev.fencing.spring;

import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.orm.jpa.JpaVendorAdapter;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;

/**
 * Hibernate wraps the driver's SQLException in its own {@code JDBCException}; Spring's
 * {@link HibernateJpaDialect} hands that SQLException to its JDBC exception translator first when
 * it has one. Loaded only when Spring ORM and Hibernate are on the class path.
 */
final class JpaTranslation {

    private JpaTranslation() {
    }

    static void apply(Object bean) {
        if (bean instanceof JpaVendorAdapter adapter) {
            translate(adapter.getJpaDialect());
        } else if (bean instanceof AbstractEntityManagerFactoryBean factory) {
            translate(factory.getJpaDialect());
            JpaVendorAdapter adapter = factory.getJpaVendorAdapter();
            if (adapter != null) {
                translate(adapter.getJpaDialect());
            }
        }
    }

    private static void translate(JpaDialect dialect) {
        if (dialect instanceof HibernateJpaDialect hibernate) {
            // no fallback: for every other error the dialect keeps its own mapping
            hibernate.setJdbcExceptionTranslator(new FencingExceptionTranslator(null));
        }
    }
}
