from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("researchapp", "0014_deeploop_steps"),
    ]

    operations = [
        migrations.AddField(
            model_name="finding",
            name="calculation",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
