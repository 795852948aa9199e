package dev.fencing.spring;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Makes Spring's JDBC and JPA support translate fencing's errors: every {@link JdbcTemplate}
 * (also the one inside a {@link NamedParameterJdbcTemplate}, and so {@code JdbcClient} and Spring
 * Data JDBC), every {@link JdbcTransactionManager} (errors at commit), and Hibernate's JPA dialect
 * (Spring Data JPA repositories, {@code @PersistenceContext} and the JPA transaction manager)
 * get a {@link FencingExceptionTranslator} in front of the translator they had.
 */
final class FencingTranslationPostProcessor implements BeanPostProcessor {

    private static final boolean JPA = ClassUtils.isPresent("org.springframework.orm.jpa.vendor.HibernateJpaDialect",
            FencingTranslationPostProcessor.class.getClassLoader())
            && ClassUtils.isPresent("org.hibernate.JDBCException", FencingTranslationPostProcessor.class.getClassLoader());

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (JPA) {
            JpaTranslation.apply(bean);
        }
        return bean;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof JdbcTemplate template) {
            translate(template);
        } else if (bean instanceof NamedParameterJdbcTemplate named) {
            translate(named.getJdbcTemplate());
        } else if (bean instanceof JdbcTransactionManager manager) {
            manager.setExceptionTranslator(FencingExceptionTranslator.around(manager.getExceptionTranslator()));
        }
        if (JPA) {
            JpaTranslation.apply(bean);
        }
        return bean;
    }

    private static void translate(JdbcTemplate template) {
        template.setExceptionTranslator(FencingExceptionTranslator.around(template.getExceptionTranslator()));
    }
}
