from typing import ClassVar

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.core.exceptions import ValidationError

from .models import AVATAR_COLORS, User, name_key
from .services import LOGIN_DISABLED, login_disabled
from .validators import shown_name_problem

NAME_TAKEN = (
    "这个名字和其他玩家的名字一样或看起来一样（不区分大小写、全角半角和形近字母），请换一个"
)


def _check_shown_name(form: forms.ModelForm[User], display_name: str, username: str) -> None:
    """Refuse a shown name (the display name, else the username) that hides or imitates
    (:func:`shown_name_problem`), or that another user's shown name equals up to case, width
    and look-alike letters."""
    shown = display_name or username
    if not shown:
        return
    field = "display_name" if display_name else "username"
    if problem := shown_name_problem(shown):
        form.add_error(field, problem)
        return
    others = User.objects.filter(shown_key=name_key(shown))
    if form.instance.pk is not None:
        others = others.exclude(pk=form.instance.pk)
    if others.exists():
        form.add_error(field, NAME_TAKEN)


class RegisterForm(UserCreationForm[User]):
    """Sign-up form: username, display name (Chinese welcome) and password (twice)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家在牌桌上看到的名字，可以用中文"
        }

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        _check_shown_name(
            self, str(cleaned.get("display_name") or ""), str(cleaned.get("username") or "")
        )
        return cleaned


class ProfileForm(forms.ModelForm[User]):
    """Change one's display name, avatar colour and email (for 忘记密码)."""

    avatar_color = forms.ChoiceField(
        label="头像颜色",
        choices=[("", "自动"), *AVATAR_COLORS],
        required=False,
        widget=forms.RadioSelect(attrs={"class": "swatches"}),
    )

    class Meta:
        model = User
        fields = ("display_name", "avatar_color", "email")
        labels: ClassVar[dict[str, str]] = {"email": "邮箱"}
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家在牌桌上看到的名字，头像显示它的第一个字",
            "email": "选填；忘记密码时把重置链接发到这里",
        }

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        _check_shown_name(self, str(cleaned.get("display_name") or ""), self.instance.username)
        return cleaned


class LoginForm(AuthenticationForm):
    """The login form; a deactivated account, given its right password, is told it is
    disabled instead of "wrong password"."""

    def clean(self) -> dict[str, object]:
        try:
            return super().clean()
        except ValidationError:
            username, password = self.data.get("username", ""), self.data.get("password", "")
            if login_disabled(username=str(username), password=str(password)):
                raise ValidationError(LOGIN_DISABLED, code="inactive") from None
            raise


class ChinesePasswordResetForm(PasswordResetForm):
    """忘记密码: the email field, labelled in Chinese."""

    email = forms.EmailField(
        label="注册时填写的邮箱",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class BotForm(forms.ModelForm[User]):
    """A bot account: a username and the name people see (marked（机器人）)."""

    class Meta:
        model = User
        fields = ("username", "display_name")
        help_texts: ClassVar[dict[str, str]] = {
            "display_name": "其他玩家看到的名字，后面会自动标明（机器人）",
        }

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        name = str(cleaned.get("display_name") or cleaned.get("username") or "")
        _check_shown_name(self, f"{name}（机器人）" if name else "", "")
        return cleaned


class TokenForm(forms.Form):
    """A new API token: a name, whose it is (mine or one of my bots), and its scope."""

    name = forms.CharField(label="名称", max_length=40)
    account = forms.TypedChoiceField(label="账号", coerce=int)
    play = forms.BooleanField(label="可以下牌（不勾选：只能查看）", required=False)

    def __init__(self, *args: object, user: User, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["account"].choices = [  # type: ignore[attr-defined]
            (user.pk, f"{user}（我自己）"), *((bot.pk, str(bot)) for bot in user.bots.all()),
        ]
